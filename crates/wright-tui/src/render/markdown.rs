//! Markdown answers as wrapped, styled lines: pulldown-cmark events folded into ratatui lines.
//!
//! Blocks are separated by one blank line; the result never starts or ends with one. Prose is
//! word-wrapped to the width, list items keep a hanging indent, block quotes get a `│ ` bar.
//! Code blocks are highlighted by their fence's language and are never re-flowed: a line wider
//! than the width is broken between characters (nothing is cut, so a long command can still be
//! copied). Any fragment renders: the application calls [`markdown`] on each completed block
//! while the answer streams, and a fence that is not closed yet renders as code.

use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::highlight::{self, language_token};
use super::palette::{BOLD, DIM};
use super::text::{break_chars, clean_prose, trim_end, width as text_width, wrap};
use super::{Theme, text};

/// The Markdown extensions models use: GitHub tables, `~~strike~~`, `- [x]` task lists.
const OPTIONS: Options = Options::ENABLE_TABLES
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_TASKLISTS);

const INLINE_CODE: Style = Style::new().fg(Color::Cyan);
const LINK_TEXT: Style = Style::new().add_modifier(Modifier::UNDERLINED);
/// Before every line of a block quote.
const QUOTE_BAR: &str = "│ ";
/// Bullets by list depth; deeper lists reuse the last.
const BULLETS: [&str; 3] = ["• ", "◦ ", "▪ "];
/// Between table cells.
const CELL_SEPARATOR: &str = " │ ";

fn heading_style(level: HeadingLevel) -> Style {
    match level {
        HeadingLevel::H1 => BOLD.add_modifier(Modifier::UNDERLINED),
        HeadingLevel::H2 => BOLD,
        _ => BOLD.add_modifier(Modifier::ITALIC),
    }
}

/// Renders Markdown `text` as lines at most `width` columns wide. Text always gets at least one
/// column after the indents of quotes and lists, so only when those indents alone fill the
/// width (a width under 10 or so) can a line be wider.
///
/// Without colour ([`Theme::color`] false) headings keep their `#` marks, inline code its
/// backticks and code blocks their fences, since no style can show them.
pub fn markdown(text: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let mut renderer = Renderer::new(usize::from(width).max(1), *theme);
    for event in Parser::new_ext(text, OPTIONS) {
        renderer.event(event);
    }
    theme.finish(renderer.finish())
}

/// A block that indents what it holds.
enum Container {
    /// A block quote: `│ ` before every line.
    Quote,
    /// A list item: its marker before its first line, as many spaces before the others.
    Item {
        marker: Span<'static>,
        marker_shown: bool,
    },
}

/// A code block being collected.
struct CodeBlock {
    language: String,
    fenced: bool,
    text: String,
}

/// A link or image whose text is being collected.
struct OpenLink {
    url: String,
    /// Index in the inline spans where its text starts.
    start: usize,
    image: bool,
}

/// A table being collected; cells are inline spans.
#[derive(Default)]
struct Table {
    alignments: Vec<Alignment>,
    rows: Vec<Vec<Vec<Span<'static>>>>,
    row: Vec<Vec<Span<'static>>>,
    has_header: bool,
}

struct Renderer {
    width: usize,
    theme: Theme,
    lines: Vec<Line<'static>>,
    /// Inline text of the block being read, not yet wrapped.
    inline: Vec<Span<'static>>,
    /// Inline styles in force (emphasis, links, the heading); they combine.
    styles: Vec<Style>,
    /// Open quotes and list items, outermost first.
    containers: Vec<Container>,
    /// Open lists: the next number of an ordered list, `None` for a bullet list.
    lists: Vec<Option<u64>>,
    links: Vec<OpenLink>,
    code: Option<CodeBlock>,
    table: Option<Table>,
    /// A blank line goes before the next block.
    blank_pending: bool,
}

impl Renderer {
    fn new(width: usize, theme: Theme) -> Self {
        Self {
            width,
            theme,
            lines: Vec::new(),
            inline: Vec::new(),
            styles: Vec::new(),
            containers: Vec::new(),
            lists: Vec::new(),
            links: Vec::new(),
            code: None,
            table: None,
            blank_pending: false,
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(&text),
            Event::Code(code) => {
                let code = clean_prose(&code);
                let code = if self.theme.color {
                    code
                } else {
                    format!("`{code}`")
                };
                self.push(code, self.style().patch(INLINE_CODE));
            }
            Event::Html(html) | Event::InlineHtml(html) => self.text(&html),
            Event::InlineMath(math) | Event::DisplayMath(math) => self.text(&math),
            Event::FootnoteReference(label) => self.text(&format!("[^{label}]")),
            Event::SoftBreak => self.push(" ".into(), self.style()),
            Event::HardBreak => self.push("\n".into(), self.style()),
            Event::Rule => self.rule(),
            Event::TaskListMarker(done) => {
                self.push(if done { "[x] " } else { "[ ] " }.into(), self.style());
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph | Tag::HtmlBlock => self.flush(),
            Tag::Heading { level, .. } => {
                self.flush();
                self.styles.push(heading_style(level));
                if !self.theme.color {
                    let marks = "#".repeat(level as usize);
                    self.push(format!("{marks} "), self.style());
                }
            }
            Tag::BlockQuote(_) => {
                self.flush();
                // The blank line before a quote has no bar.
                self.start_block();
                self.containers.push(Container::Quote);
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                let (language, fenced) = match kind {
                    CodeBlockKind::Fenced(info) => (language_token(&info).to_string(), true),
                    CodeBlockKind::Indented => (String::new(), false),
                };
                self.code = Some(CodeBlock {
                    language,
                    fenced,
                    text: String::new(),
                });
            }
            Tag::List(first_number) => {
                self.flush();
                self.lists.push(first_number);
            }
            Tag::Item => {
                self.flush();
                let depth = self.lists.len().saturating_sub(1);
                let marker = match self.lists.last_mut() {
                    Some(Some(number)) => {
                        let marker = format!("{number}. ");
                        *number += 1;
                        marker
                    }
                    _ => BULLETS[depth.min(BULLETS.len() - 1)].to_string(),
                };
                self.containers.push(Container::Item {
                    marker: Span::styled(marker, DIM),
                    marker_shown: false,
                });
            }
            Tag::Table(alignments) => {
                self.flush();
                self.table = Some(Table {
                    alignments,
                    ..Table::default()
                });
            }
            Tag::Emphasis => self
                .styles
                .push(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.styles.push(BOLD),
            Tag::Strikethrough => self
                .styles
                .push(Style::new().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { dest_url, .. } => self.start_link(&dest_url, false),
            Tag::Image { dest_url, .. } => self.start_link(&dest_url, true),
            // Not enabled in OPTIONS; their text still shows.
            Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::TableHead
            | Tag::TableRow
            | Tag::TableCell
            | Tag::Superscript
            | Tag::Subscript
            | Tag::MetadataBlock(_) => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock => self.end_block(),
            TagEnd::Heading(_) => {
                self.end_block();
                self.styles.pop();
            }
            TagEnd::BlockQuote(_) => {
                self.end_block();
                self.containers.pop();
            }
            TagEnd::CodeBlock => {
                if let Some(code) = self.code.take() {
                    self.code_block(code);
                }
                self.blank_pending = true;
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                // Lists nested in an item are part of it: no blank line before the next item.
                let nested = self
                    .containers
                    .iter()
                    .any(|c| matches!(c, Container::Item { .. }));
                self.blank_pending |= !nested;
            }
            TagEnd::Item => {
                self.flush();
                if let Some(Container::Item {
                    marker_shown: false,
                    ..
                }) = self.containers.last()
                {
                    // An empty item (`- ` while streaming) still shows its marker.
                    self.start_block();
                    let (mut first, _) = self.prefixes();
                    trim_end(&mut first);
                    self.lines.push(Line::from(first));
                }
                self.containers.pop();
            }
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.inline);
                if let Some(table) = &mut self.table {
                    table.row.push(cell);
                }
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(table) = &mut self.table {
                    let row = std::mem::take(&mut table.row);
                    table.rows.push(row);
                    table.has_header |= tag == TagEnd::TableHead;
                }
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    self.render_table(table);
                }
                self.blank_pending = true;
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                self.styles.pop();
            }
            TagEnd::Link | TagEnd::Image => self.end_link(),
            TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::MetadataBlock(_) => {}
        }
    }

    fn start_link(&mut self, url: &str, image: bool) {
        if image {
            self.push("[image: ".into(), self.style());
        }
        self.links.push(OpenLink {
            url: clean_prose(url),
            start: self.inline.len(),
            image,
        });
        self.styles.push(LINK_TEXT);
    }

    /// The link text is shown; the URL follows, dimmed, unless it is the text itself.
    fn end_link(&mut self) {
        self.styles.pop();
        let Some(link) = self.links.pop() else {
            return;
        };
        if link.image {
            self.push("]".into(), self.style());
        }
        let text: String = self.inline[link.start.min(self.inline.len())..]
            .iter()
            .map(|span| span.content.as_ref())
            .collect();
        let bare = link.url.strip_prefix("mailto:").unwrap_or(&link.url);
        if !link.url.is_empty() && text != link.url && text != bare {
            self.push(" ".into(), self.style());
            self.push(format!("({})", link.url), DIM);
        }
    }

    fn style(&self) -> Style {
        self.styles
            .iter()
            .fold(Style::default(), |style, s| style.patch(*s))
    }

    fn text(&mut self, text: &str) {
        if let Some(code) = &mut self.code {
            code.text.push_str(text);
        } else {
            self.push(clean_prose(text), self.style());
        }
    }

    fn push(&mut self, text: String, style: Style) {
        self.inline.push(Span::styled(text, style));
    }

    /// Starts a block: the pending blank line, if any, and not before the first block.
    fn start_block(&mut self) {
        if self.blank_pending && !self.lines.is_empty() {
            let mut blank = self.rest_prefix();
            trim_end(&mut blank);
            self.lines.push(Line::from(blank));
        }
        self.blank_pending = false;
    }

    fn end_block(&mut self) {
        self.flush();
        self.blank_pending = true;
    }

    /// The prefixes of the containers for a block's first line and for its other lines. The
    /// first line of an item's first block carries the item's marker.
    fn prefixes(&mut self) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
        let rest = self.rest_prefix();
        let mut first = Vec::new();
        for container in &mut self.containers {
            match container {
                Container::Quote => first.push(Span::styled(QUOTE_BAR, DIM)),
                Container::Item {
                    marker,
                    marker_shown,
                } => {
                    if *marker_shown {
                        first.push(indent(marker));
                    } else {
                        first.push(marker.clone());
                        *marker_shown = true;
                    }
                }
            }
        }
        (first, rest)
    }

    fn rest_prefix(&self) -> Vec<Span<'static>> {
        self.containers
            .iter()
            .map(|container| match container {
                Container::Quote => Span::styled(QUOTE_BAR, DIM),
                Container::Item { marker, .. } => indent(marker),
            })
            .collect()
    }

    /// Wraps the inline text read so far into lines.
    fn flush(&mut self) {
        if self.inline.is_empty() {
            return;
        }
        let spans = std::mem::take(&mut self.inline);
        self.start_block();
        let (first, rest) = self.prefixes();
        self.lines.extend(wrap(&spans, self.width, &first, &rest));
    }

    fn rule(&mut self) {
        self.flush();
        self.start_block();
        let (mut line, _) = self.prefixes();
        let used = spans_width(&line);
        line.push(Span::styled(
            "─".repeat(self.width.saturating_sub(used).max(1)),
            DIM,
        ));
        self.lines.push(Line::from(line));
        self.blank_pending = true;
    }

    fn code_block(&mut self, code: CodeBlock) {
        let fences = code.fenced && !self.theme.color;
        let body = if self.theme.color {
            highlight::highlight(&code.text, &code.language)
        } else {
            highlight::plain(&code.text)
        };
        if body.is_empty() && !fences {
            return;
        }
        self.start_block();
        let (first, rest) = self.prefixes();
        let mut rows: Vec<Vec<Span<'static>>> = Vec::new();
        if fences {
            rows.push(vec![Span::raw(format!("```{}", code.language))]);
        }
        rows.extend(body);
        if fences {
            rows.push(vec![Span::raw("```")]);
        }
        for (index, row) in rows.iter().enumerate() {
            let first = if index == 0 { &first } else { &rest };
            self.lines
                .extend(break_chars(row, self.width, first, &rest));
        }
    }

    /// A table with padded columns when it fits the width; otherwise each row as its cells
    /// joined by `│`, wrapped like prose.
    fn render_table(&mut self, table: Table) {
        if table.rows.is_empty() {
            return;
        }
        self.start_block();
        let (first, rest) = self.prefixes();
        let columns = table.rows.iter().map(Vec::len).max().unwrap_or(0);
        let widths: Vec<usize> = (0..columns)
            .map(|column| {
                let cells = table.rows.iter().filter_map(|row| row.get(column));
                cells.map(|cell| cell_width(cell)).max().unwrap_or(0)
            })
            .collect();
        let prefix_width = spans_width(&first).max(spans_width(&rest));
        let separators = text_width(CELL_SEPARATOR) * columns.saturating_sub(1);
        let fits = prefix_width + widths.iter().sum::<usize>() + separators <= self.width;
        for (index, row) in table.rows.iter().enumerate() {
            let header = table.has_header && index == 0;
            let prefix = if index == 0 { &first } else { &rest };
            let mut spans = Vec::new();
            for (column, cell) in row.iter().enumerate() {
                if column > 0 {
                    spans.push(Span::styled(CELL_SEPARATOR, DIM));
                }
                let pad = widths[column].saturating_sub(cell_width(cell));
                let alignment = table.alignments.get(column).copied();
                let (before, mut after) = match alignment {
                    _ if !fits => (0, 0),
                    Some(Alignment::Right) => (pad, 0),
                    Some(Alignment::Center) => (pad / 2, pad - pad / 2),
                    _ => (0, pad),
                };
                if column + 1 == row.len() {
                    // No trailing spaces after the last cell.
                    after = 0;
                }
                spans.push(Span::raw(" ".repeat(before)));
                for span in cell {
                    let style = if header {
                        span.style.patch(BOLD)
                    } else {
                        span.style
                    };
                    spans.push(Span::styled(span.content.replace('\n', " "), style));
                }
                spans.push(Span::raw(" ".repeat(after)));
            }
            spans.retain(|span| !span.content.is_empty());
            if fits {
                let mut line = prefix.clone();
                line.extend(spans);
                self.lines.push(Line::from(line));
            } else {
                self.lines.extend(wrap(&spans, self.width, prefix, &rest));
            }
            if header && fits {
                let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                let mut line = rest.clone();
                line.push(Span::styled(rule.join("─┼─"), DIM));
                self.lines.push(Line::from(line));
            }
        }
    }

    fn finish(mut self) -> Vec<Line<'static>> {
        self.flush();
        if let Some(code) = self.code.take() {
            self.code_block(code);
        }
        self.lines
    }
}

/// Spaces as wide as a list marker: the hanging indent of an item's other lines.
fn indent(marker: &Span<'_>) -> Span<'static> {
    Span::raw(" ".repeat(marker.width()))
}

fn cell_width(cell: &[Span<'_>]) -> usize {
    cell.iter().map(|span| text::width(&span.content)).sum()
}

fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(Span::width).sum()
}
