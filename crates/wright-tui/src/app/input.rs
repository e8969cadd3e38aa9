//! The prompt: a multi-line text area where Enter sends, Alt-Enter (or a trailing `\`) starts
//! a new line, a bracketed paste arrives as one block, and Up/Down on the first/last line walk
//! the project's input history.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::widgets::Widget;
use ratatui_textarea::{CursorMove, TextArea, WrapMode};

use super::history::InputHistory;
use super::wrap;

/// Most rows the prompt grows to before it scrolls.
pub const MAX_ROWS: u16 = 10;

/// What a key did to the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// Enter: this text was sent, and the prompt is empty again.
    Submitted(String),
    /// The text or the cursor changed.
    Changed,
    /// The prompt does not use this key.
    Ignored,
}

/// The text being typed.
pub struct Composer {
    area: TextArea<'static>,
    history: InputHistory,
}

impl Composer {
    /// An empty prompt walking `history`.
    pub fn new(history: InputHistory) -> Self {
        Self {
            area: text_area(Vec::new()),
            history,
        }
    }

    /// What is typed, lines joined with `\n`.
    pub fn text(&self) -> String {
        self.area.lines().join("\n")
    }

    /// Whether nothing is typed.
    pub fn is_empty(&self) -> bool {
        self.area.lines().iter().all(String::is_empty)
    }

    /// Replaces what is typed; the cursor goes to the end.
    pub fn set_text(&mut self, text: &str) {
        self.area = text_area(text.split('\n').map(str::to_string).collect());
        self.area.move_cursor(CursorMove::Bottom);
        self.area.move_cursor(CursorMove::End);
    }

    /// Empties the prompt.
    pub fn clear(&mut self) {
        self.area = text_area(Vec::new());
    }

    /// Inserts pasted text at the cursor as it is (line breaks become new lines, nothing is
    /// sent).
    pub fn paste(&mut self, text: &str) {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        self.area.insert_str(text);
    }

    /// Sets the dimmed text shown while nothing is typed.
    pub fn set_placeholder(&mut self, text: &str) {
        self.area.set_placeholder_text(text);
    }

    /// Handles a key.
    pub fn key(&mut self, key: KeyEvent) -> Edit {
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Enter if alt || shift => {
                self.area.insert_newline();
                Edit::Changed
            }
            KeyCode::Char('j') if ctrl => {
                self.area.insert_newline();
                Edit::Changed
            }
            // As in a shell (the text area would undo).
            KeyCode::Char('u') if ctrl => {
                self.area.delete_line_by_head();
                Edit::Changed
            }
            KeyCode::Enter => self.enter(),
            KeyCode::Up if !ctrl && !alt && self.cursor().0 == 0 => {
                let current = self.text();
                match self.history.earlier(&current).map(str::to_string) {
                    Some(entry) => {
                        self.set_text(&entry);
                        Edit::Changed
                    }
                    None => Edit::Ignored,
                }
            }
            KeyCode::Down if !ctrl && !alt && self.cursor().0 + 1 >= self.area.lines().len() => {
                match self.history.later().map(str::to_string) {
                    Some(entry) => {
                        self.set_text(&entry);
                        Edit::Changed
                    }
                    None => Edit::Ignored,
                }
            }
            KeyCode::Tab | KeyCode::BackTab | KeyCode::Esc => Edit::Ignored,
            _ => {
                // A cursor move changes no text but is handled all the same.
                self.area.input(key);
                Edit::Changed
            }
        }
    }

    /// Enter: a line ending in `\` continues on a new line; otherwise the text is sent (blank
    /// text is not).
    fn enter(&mut self) -> Edit {
        let (row, col) = self.cursor();
        let line = self.area.lines().get(row).cloned().unwrap_or_default();
        let at_line_end = col == line.chars().count();
        if at_line_end && line.ends_with('\\') {
            self.area.delete_char();
            self.area.insert_newline();
            return Edit::Changed;
        }
        let text = self.text();
        if text.trim().is_empty() {
            return Edit::Ignored;
        }
        self.history.push(&text);
        self.clear();
        Edit::Submitted(text)
    }

    /// The word the cursor is at the end of, with the column it starts at, on the cursor's
    /// line: what completion works on.
    pub fn word_at_cursor(&self) -> Option<(usize, String)> {
        let (row, col) = self.cursor();
        let line = self.area.lines().get(row)?;
        let before: Vec<char> = line.chars().take(col).collect();
        let start = before
            .iter()
            .rposition(|c| c.is_whitespace())
            .map_or(0, |i| i + 1);
        let after_is_word = line.chars().nth(col).is_some_and(|c| !c.is_whitespace());
        if after_is_word {
            return None;
        }
        Some((start, before[start..].iter().collect()))
    }

    /// The cursor's line and column (in characters).
    pub fn cursor(&self) -> (usize, usize) {
        let cursor = self.area.cursor();
        (cursor.0, cursor.1)
    }

    /// Replaces the word that ends at the cursor (it started at column `start`) with
    /// `replacement`.
    pub fn replace_word(&mut self, start: usize, replacement: &str) {
        let (_, col) = self.cursor();
        for _ in start..col {
            self.area.delete_char();
        }
        self.area.insert_str(replacement);
    }

    /// Rows the prompt needs at `width` columns (the text area's own width).
    pub fn rows(&self, width: u16) -> u16 {
        // One column is kept for the cursor after a full line.
        let rows = wrap::rows(&self.text(), usize::from(width.saturating_sub(1)));
        u16::try_from(rows).unwrap_or(MAX_ROWS).clamp(1, MAX_ROWS)
    }

    /// Draws the text area (with its cursor) into `area`.
    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        (&self.area).render(area, buf);
    }
}

fn text_area(lines: Vec<String>) -> TextArea<'static> {
    let mut area = TextArea::new(lines);
    area.set_wrap_mode(WrapMode::Glyph);
    area.set_cursor_line_style(Style::default());
    area.set_cursor_style(Style::default().add_modifier(Modifier::REVERSED));
    area.set_placeholder_text("Ask wright to do something  (/help for commands)");
    area.set_placeholder_style(Style::default().add_modifier(Modifier::DIM));
    area
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn typed(composer: &mut Composer, text: &str) {
        for c in text.chars() {
            composer.key(key(KeyCode::Char(c)));
        }
    }

    fn composer() -> Composer {
        Composer::new(InputHistory::in_memory(Vec::new()))
    }

    #[test]
    fn enter_sends_the_text_and_empties_the_prompt() {
        let mut composer = composer();
        typed(&mut composer, "hello");
        assert_eq!(
            composer.key(key(KeyCode::Enter)),
            Edit::Submitted("hello".into())
        );
        assert!(composer.is_empty());
    }

    #[test]
    fn alt_enter_and_a_trailing_backslash_start_a_new_line() {
        let mut composer = composer();
        typed(&mut composer, "one");
        composer.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT));
        typed(&mut composer, "two\\");
        assert_eq!(composer.key(key(KeyCode::Enter)), Edit::Changed);
        typed(&mut composer, "three");
        assert_eq!(
            composer.key(key(KeyCode::Enter)),
            Edit::Submitted("one\ntwo\nthree".into())
        );
    }

    #[test]
    fn a_paste_is_inserted_whole_and_not_sent() {
        let mut composer = composer();
        composer.paste("line 1\r\nline 2\n");
        assert_eq!(composer.text(), "line 1\nline 2\n");
    }

    #[test]
    fn blank_input_is_not_sent() {
        let mut composer = composer();
        typed(&mut composer, "  ");
        assert_eq!(composer.key(key(KeyCode::Enter)), Edit::Ignored);
    }

    #[test]
    fn up_on_the_first_line_recalls_earlier_input() {
        let mut composer = Composer::new(InputHistory::in_memory(vec!["earlier".into()]));
        typed(&mut composer, "draft");
        composer.key(key(KeyCode::Up));
        assert_eq!(composer.text(), "earlier");
        composer.key(key(KeyCode::Down));
        assert_eq!(composer.text(), "draft");
    }

    #[test]
    fn the_word_at_the_cursor_can_be_replaced() {
        let mut composer = composer();
        typed(&mut composer, "look at @src/ma");
        assert_eq!(composer.word_at_cursor(), Some((8, "@src/ma".into())));
        composer.replace_word(8, "@src/main.rs ");
        assert_eq!(composer.text(), "look at @src/main.rs ");
    }

    #[test]
    fn rows_grow_with_the_text_up_to_a_limit() {
        let mut composer = composer();
        assert_eq!(composer.rows(20), 1);
        composer.paste(&"x\n".repeat(30));
        assert_eq!(composer.rows(20), MAX_ROWS);
    }
}
