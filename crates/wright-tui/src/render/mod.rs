//! Styled lines for everything the interactive terminal shows: Markdown answers, unified
//! diffs, one-line tool calls and results, the status line.
