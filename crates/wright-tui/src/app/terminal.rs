//! The terminal the session draws on: an inline viewport under the real scrollback (lines
//! pushed above it with `insert_before`), whose height follows what it shows.
//!
//! Ratatui asks the terminal where its cursor is whenever an inline viewport is made or resized
//! (`ESC [6n`). While crossterm's event stream reads stdin, that answer never reaches the asker
//! (the stream's reader holds the input lock), so [`TrackedBackend`] answers from the position it
//! last moved the cursor to instead. Only the very first viewport, made before input is read,
//! asks the terminal.

use std::io;
use std::sync::{Arc, Mutex, PoisonError};

use ratatui::backend::{Backend, ClearType, WindowSize};
use ratatui::buffer::{Buffer, Cell};
use ratatui::layout::{Position, Size};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};
use ratatui::{Frame, Terminal, TerminalOptions, Viewport};
use unicode_width::UnicodeWidthStr;

/// A backend that remembers where it left the cursor and reports that instead of asking.
///
/// Clones share one backend, so a new [`Terminal`] (a viewport of another height) can be made
/// over the same output.
#[derive(Debug)]
pub struct TrackedBackend<B> {
    shared: Arc<Mutex<Tracked<B>>>,
}

impl<B> Clone for TrackedBackend<B> {
    fn clone(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
        }
    }
}

#[derive(Debug)]
struct Tracked<B> {
    inner: B,
    cursor: Option<Position>,
}

impl<B: Backend> TrackedBackend<B> {
    /// Wraps `inner`; until the cursor is moved, its position is asked of `inner`.
    pub fn new(inner: B) -> Self {
        Self {
            shared: Arc::new(Mutex::new(Tracked {
                inner,
                cursor: None,
            })),
        }
    }

    /// Runs `f` on the wrapped backend.
    pub fn with_inner<T>(&self, f: impl FnOnce(&B) -> T) -> T {
        f(&self.lock().inner)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Tracked<B>> {
        // A panic while drawing leaves nothing half-done that matters: keep going.
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<B: Backend> Backend for TrackedBackend<B> {
    type Error = B::Error;

    fn draw<'a, I>(&mut self, content: I) -> Result<(), Self::Error>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        let mut last = None;
        let content = content.inspect(|(x, y, cell)| {
            let width = u16::try_from(cell.symbol().width()).unwrap_or(1);
            last = Some(Position::new(x.saturating_add(width), *y));
        });
        let mut tracked = self.lock();
        tracked.inner.draw(content)?;
        if let Some(last) = last {
            tracked.cursor = Some(last);
        }
        Ok(())
    }

    fn append_lines(&mut self, n: u16) -> Result<(), Self::Error> {
        let mut tracked = self.lock();
        tracked.inner.append_lines(n)?;
        let bottom = tracked.inner.size()?.height.saturating_sub(1);
        if let Some(cursor) = &mut tracked.cursor {
            cursor.y = cursor.y.saturating_add(n).min(bottom);
        }
        Ok(())
    }

    fn hide_cursor(&mut self) -> Result<(), Self::Error> {
        self.lock().inner.hide_cursor()
    }

    fn show_cursor(&mut self) -> Result<(), Self::Error> {
        self.lock().inner.show_cursor()
    }

    fn get_cursor_position(&mut self) -> Result<Position, Self::Error> {
        let mut tracked = self.lock();
        match tracked.cursor {
            Some(cursor) => Ok(cursor),
            None => tracked.inner.get_cursor_position(),
        }
    }

    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> Result<(), Self::Error> {
        let position = position.into();
        let mut tracked = self.lock();
        tracked.inner.set_cursor_position(position)?;
        tracked.cursor = Some(position);
        Ok(())
    }

    fn clear(&mut self) -> Result<(), Self::Error> {
        self.lock().inner.clear()
    }

    fn clear_region(&mut self, clear_type: ClearType) -> Result<(), Self::Error> {
        self.lock().inner.clear_region(clear_type)
    }

    fn size(&self) -> Result<Size, Self::Error> {
        self.lock().inner.size()
    }

    fn window_size(&mut self) -> Result<WindowSize, Self::Error> {
        self.lock().inner.window_size()
    }

    fn flush(&mut self) -> Result<(), Self::Error> {
        self.lock().inner.flush()
    }

    fn scroll_region_up(
        &mut self,
        region: std::ops::Range<u16>,
        line_count: u16,
    ) -> Result<(), Self::Error> {
        self.lock().inner.scroll_region_up(region, line_count)
    }

    fn scroll_region_down(
        &mut self,
        region: std::ops::Range<u16>,
        line_count: u16,
    ) -> Result<(), Self::Error> {
        self.lock().inner.scroll_region_down(region, line_count)
    }
}

/// The inline viewport and the scrollback above it.
pub struct Screen<B: Backend> {
    backend: TrackedBackend<B>,
    terminal: Terminal<TrackedBackend<B>>,
    height: u16,
}

impl<B: Backend> Screen<B>
where
    B::Error: Send + Sync + 'static,
{
    /// An inline viewport of `height` rows at the cursor of `backend`'s terminal.
    pub fn new(backend: B, height: u16) -> io::Result<Self> {
        let backend = TrackedBackend::new(backend);
        let height = height.max(1);
        let terminal = inline(&backend, height)?;
        Ok(Self {
            backend,
            terminal,
            height,
        })
    }

    /// The terminal's width in columns.
    pub fn width(&self) -> u16 {
        self.backend.size().map_or(80, |size| size.width)
    }

    /// Runs `f` on the backend (tests read a `TestBackend`'s buffer this way).
    pub fn with_backend<T>(&self, f: impl FnOnce(&B) -> T) -> T {
        self.backend.with_inner(f)
    }

    /// Writes `lines` into the scrollback above the viewport, wrapping those wider than the
    /// terminal.
    pub fn insert(&mut self, lines: Vec<Line<'static>>) -> io::Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        let width = usize::from(self.width().max(1));
        let lines: Vec<Line<'static>> = lines
            .into_iter()
            .flat_map(|line| super::wrap::wrap_line(line, width))
            .collect();
        // A block is drawn into one buffer first: keep each one moderate.
        for chunk in lines.chunks(INSERT_CHUNK_LINES) {
            let height = u16::try_from(chunk.len()).unwrap_or(u16::MAX);
            let chunk = chunk.to_vec();
            self.terminal
                .insert_before(height, |buf: &mut Buffer| {
                    Paragraph::new(chunk).render(buf.area, buf);
                })
                .map_err(io::Error::other)?;
        }
        Ok(())
    }

    /// Draws the viewport, first making it `height` rows tall (at most the screen's height).
    pub fn draw(&mut self, height: u16, render: impl FnOnce(&mut Frame)) -> io::Result<()> {
        let screen = self.backend.size().map_err(io::Error::other)?.height;
        let height = height.clamp(1, screen.max(1));
        if height != self.height {
            self.set_height(height)?;
        }
        self.terminal.draw(render).map_err(io::Error::other)?;
        Ok(())
    }

    /// Rebuilds the viewport with `height` rows, starting where the old one started.
    fn set_height(&mut self, height: u16) -> io::Result<()> {
        self.park_cursor()?;
        self.terminal = inline(&self.backend, height)?;
        self.height = height;
        Ok(())
    }

    /// The terminal changed size: the viewport is made anew at most as far down as it fits.
    pub fn resized(&mut self) -> io::Result<()> {
        let size = self.backend.size().map_err(io::Error::other)?;
        let top = self.terminal.get_frame().area().y;
        let top = top.min(size.height.saturating_sub(self.height));
        let mut backend = self.backend.clone();
        backend
            .set_cursor_position(Position::new(0, top))
            .map_err(io::Error::other)?;
        backend
            .clear_region(ClearType::AfterCursor)
            .map_err(io::Error::other)?;
        self.terminal = inline(&self.backend, self.height)?;
        Ok(())
    }

    /// Clears the viewport and puts the cursor where it started, for the shell to go on there.
    pub fn finish(&mut self) -> io::Result<()> {
        self.park_cursor()?;
        self.terminal.show_cursor().map_err(io::Error::other)?;
        Ok(())
    }

    fn park_cursor(&mut self) -> io::Result<()> {
        let top = self.terminal.get_frame().area().y;
        let mut backend = self.backend.clone();
        backend
            .set_cursor_position(Position::new(0, top))
            .map_err(io::Error::other)?;
        backend
            .clear_region(ClearType::AfterCursor)
            .map_err(io::Error::other)?;
        backend.flush().map_err(io::Error::other)?;
        Ok(())
    }
}

/// Lines written into the scrollback per `insert_before`.
const INSERT_CHUNK_LINES: usize = 200;

/// A terminal over `backend` with an inline viewport of `height` rows at its cursor.
fn inline<B: Backend>(
    backend: &TrackedBackend<B>,
    height: u16,
) -> io::Result<Terminal<TrackedBackend<B>>>
where
    B::Error: Send + Sync + 'static,
{
    Terminal::with_options(
        backend.clone(),
        TerminalOptions {
            viewport: Viewport::Inline(height),
        },
    )
    .map_err(io::Error::other)
}
