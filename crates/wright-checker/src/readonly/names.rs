//! Builtins given a variable's name to assign or test (`printf -v NAME`, `read NAME`, `test -v
//! NAME`): bash evaluates the index of an array element as arithmetic, so a name such as
//! `a[$(cmd)]` runs `cmd`. Each name must be written out, without an evaluated index.

use super::evaluation::evaluated_name;
use super::options::{exact, may_be_option};
use super::programs::unknown;
use crate::script::Word;

/// `read`'s options that take a value; `-a` takes the name of the array it fills.
const READ_VALUES: &str = "adinNptu";

/// Refuses `program`'s variable names that are not written out or have an evaluated index.
pub(super) fn check(program: &str, args: &[Word]) -> Result<(), String> {
    match program {
        "test" | "[" => test(program, args),
        "printf" => printf(args),
        "read" => read(args),
        "mapfile" | "readarray" => mapfile(program, args),
        "wait" => wait(args),
        "getopts" => args
            .get(1)
            .map_or(Ok(()), |name| name_written_out(program, name)),
        _ => Ok(()),
    }
}

/// `name`, as a builtin assigns or tests it: known now, without an evaluated index.
fn name_written_out(program: &str, name: &Word) -> Result<(), String> {
    match exact(name) {
        Some(text) if !evaluated_name(text) => Ok(()),
        Some(_) => Err(format!(
            "`{program}` is given the variable `{}`, whose index is evaluated as arithmetic and \
             can run commands (`a[$(cmd)]`)",
            name.raw
        )),
        None => Err(format!(
            "`{program}` is given the variable name `{}`, which is only known when it runs and \
             could hold an index that runs commands (`a[$(cmd)]`)",
            name.raw
        )),
    }
}

/// `test -v NAME`, `[ -R NAME ]`; also an operator only known when it runs that could be `-v`
/// (`[ $op $name ]`).
fn test(program: &str, args: &[Word]) -> Result<(), String> {
    let args = match args.last() {
        Some(last) if program == "[" && last.is("]") => &args[..args.len() - 1],
        _ => args,
    };
    for (at, word) in args.iter().enumerate() {
        let Some(next) = args.get(at + 1) else {
            break;
        };
        let tests_name = match exact(word) {
            Some(text) => matches!(text, "-v" | "-R"),
            // `[ "$a" = "$b" ]` compares; only a unary test can be `-v`.
            None => {
                may_be_option(word)
                    && args.get(at + 2).is_none_or(|after| {
                        exact(after).is_some_and(|t| matches!(t, "-a" | "-o" | ")"))
                    })
            }
        };
        if tests_name {
            name_written_out(program, next)?;
        }
    }
    Ok(())
}

/// `printf -v NAME FORMAT …`.
fn printf(args: &[Word]) -> Result<(), String> {
    let Some(first) = args.first() else {
        return Ok(());
    };
    match exact(first) {
        Some("-v") => args
            .get(1)
            .map_or(Ok(()), |name| name_written_out("printf", name)),
        Some(text) if text.starts_with("-v") => name_written_out(
            "printf",
            &Word::synthetic(text["-v".len()..].to_string(), false),
        ),
        Some(_) => Ok(()),
        None if may_be_option(first) => Err(unknown("printf", first)),
        None => Ok(()),
    }
}

/// `read [-a NAME] [OPTIONS] [NAME…]`.
fn read(args: &[Word]) -> Result<(), String> {
    let mut words = args.iter();
    let mut options = true;
    while let Some(word) = words.next() {
        let text = exact(word);
        match text {
            Some("--") if options => options = false,
            Some(text) if options && text.starts_with('-') && text.len() > 1 => {
                let cluster = &text[1..];
                if let Some((at, flag)) = cluster
                    .char_indices()
                    .find(|(_, f)| READ_VALUES.contains(*f))
                {
                    let attached = &cluster[at + 1..];
                    let value = match attached.is_empty() {
                        true => words.next().cloned(),
                        false => Some(Word::synthetic(attached.to_string(), false)),
                    };
                    if let (Some(value), 'a') = (value, flag) {
                        name_written_out("read", &value)?;
                    }
                }
            }
            _ => {
                options = false;
                name_written_out("read", word)?;
            }
        }
    }
    Ok(())
}

/// `mapfile [OPTIONS] [ARRAY]`: the array's name, after options that take values.
fn mapfile(program: &str, args: &[Word]) -> Result<(), String> {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        match exact(word) {
            Some(text) if text.starts_with('-') && text.len() > 1 => {
                let takes_value = text.len() == 2 && "dnOsuCc".contains(&text[1..]);
                if takes_value {
                    words.next();
                }
            }
            _ => name_written_out(program, word)?,
        }
    }
    Ok(())
}

/// `wait -p NAME`.
fn wait(args: &[Word]) -> Result<(), String> {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let text = exact(word);
        let names = match text {
            Some(text) => text.starts_with('-') && text.contains('p'),
            None => may_be_option(word),
        };
        if names {
            match text.and_then(|t| t.split_once('p')).map(|(_, rest)| rest) {
                Some(rest) if !rest.is_empty() => {
                    name_written_out("wait", &Word::synthetic(rest.to_string(), false))?;
                }
                _ => {
                    let name = words.next();
                    name.map_or(Ok(()), |name| name_written_out("wait", name))?;
                }
            }
        }
    }
    Ok(())
}
