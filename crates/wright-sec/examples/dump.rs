fn main() {
    let path = std::env::args().nth(1).unwrap();
    let cpp = path.ends_with(".cpp");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut p = tree_sitter::Parser::new();
    let lang: tree_sitter::Language = if cpp {
        tree_sitter_cpp::LANGUAGE.into()
    } else {
        tree_sitter_c::LANGUAGE.into()
    };
    p.set_language(&lang).unwrap();
    let t = p.parse(&text, None).unwrap();
    let mut c = t.walk();
    let mut depth = 0;
    loop {
        let n = c.node();
        if n.is_named() {
            let f = c.field_name().unwrap_or("");
            let txt = &text[n.byte_range()];
            let short: String = txt.chars().take(40).collect::<String>().replace('\n', " ");
            println!(
                "{}{}{} [{}] {:?}",
                "  ".repeat(depth),
                if f.is_empty() {
                    String::new()
                } else {
                    format!("{f}: ")
                },
                n.kind(),
                n.start_position().row + 1,
                short
            );
        }
        if c.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if c.goto_next_sibling() {
                break;
            }
            if !c.goto_parent() {
                return;
            }
            depth -= 1;
        }
    }
}
