//! The status line under the input: model, context use, the round's tokens, the cost.
//!
//! `gpt-4.1 · context 12.3k/200k (6%) · round 4.1k tokens · $0.012`

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::Theme;
use super::palette::{BOLD, DIM, ERROR, WARNING};
use super::text::clean_line;

/// Context use from which the percentage turns yellow: compaction is getting close.
const CONTEXT_WARNING_PERCENT: u64 = 80;
/// Context use from which the percentage turns red.
const CONTEXT_CRITICAL_PERCENT: u64 = 95;
/// Between the parts of the line.
const SEPARATOR: &str = " · ";

/// What the status line shows.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusInfo {
    /// The model's name as configured.
    pub model: String,
    /// Tokens the next request's context takes.
    pub context_tokens: u64,
    /// The model's context window, in tokens; 0 when unknown (no percentage is shown).
    pub context_window: u64,
    /// Tokens used by the current (or last) round.
    pub round_tokens: u64,
    /// What the session has cost so far, when the price of the model is known.
    pub cost_usd: Option<f64>,
}

/// The status line.
pub fn status_line(s: &StatusInfo, theme: &Theme) -> Line<'static> {
    let mut spans = vec![
        Span::styled(clean_line(&s.model), BOLD),
        Span::styled(SEPARATOR, DIM),
        Span::raw(format!(
            "context {}/{}",
            tokens(s.context_tokens),
            tokens(s.context_window)
        )),
    ];
    if let Some(percent) = s
        .context_tokens
        .saturating_mul(100)
        .checked_div(s.context_window)
    {
        let style = if percent >= CONTEXT_CRITICAL_PERCENT {
            ERROR
        } else if percent >= CONTEXT_WARNING_PERCENT {
            WARNING
        } else {
            Style::new()
        };
        spans.push(Span::styled(format!(" ({percent}%)"), style));
    }
    spans.push(Span::styled(SEPARATOR, DIM));
    spans.push(Span::raw(format!(
        "round {} tokens",
        tokens(s.round_tokens)
    )));
    if let Some(cost) = s.cost_usd {
        spans.push(Span::styled(SEPARATOR, DIM));
        spans.push(Span::raw(dollars(cost)));
    }
    theme.finish_line(Line::from(spans))
}

/// `950`, `12.3k`, `200k`, `1.2M`: at most one decimal, none when it is zero.
fn tokens(n: u64) -> String {
    fn scaled(n: u64, unit: u64, suffix: &str) -> String {
        let tenths = (u128::from(n) * 10 + u128::from(unit / 2)) / u128::from(unit);
        if tenths % 10 == 0 {
            format!("{}{suffix}", tenths / 10)
        } else {
            format!("{}.{}{suffix}", tenths / 10, tenths % 10)
        }
    }
    match n {
        0..1_000 => n.to_string(),
        // 999_950 would round to "1000k".
        1_000..999_950 => scaled(n, 1_000, "k"),
        _ => scaled(n, 1_000_000, "M"),
    }
}

/// `$0.012`, `$1.25`; `<$0.001` for less than a tenth of a cent.
fn dollars(cost: f64) -> String {
    if !cost.is_finite() || cost < 0.0 {
        "$?".to_string()
    } else if cost == 0.0 {
        "$0".to_string()
    } else if cost < 0.001 {
        "<$0.001".to_string()
    } else if cost < 1.0 {
        format!("${cost:.3}")
    } else {
        format!("${cost:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn tokens_are_shortened_with_at_most_one_decimal() {
        let shown: Vec<String> = [0, 950, 1_000, 12_345, 200_000, 999_949, 999_950, 1_250_000]
            .into_iter()
            .map(tokens)
            .collect();
        assert_eq!(
            shown,
            ["0", "950", "1k", "12.3k", "200k", "999.9k", "1M", "1.3M"]
        );
    }

    #[test]
    fn dollars_keep_three_decimals_below_one_dollar() {
        assert_eq!(dollars(0.0123), "$0.012");
        assert_eq!(dollars(2.5), "$2.50");
        assert_eq!(dollars(0.0001), "<$0.001");
        assert_eq!(dollars(f64::NAN), "$?");
    }

    #[test]
    fn a_nearly_full_context_is_yellow() {
        let info = StatusInfo {
            model: "m".into(),
            context_tokens: 170_000,
            context_window: 200_000,
            round_tokens: 0,
            cost_usd: None,
        };
        let line = status_line(&info, &Theme::COLOR);
        let percent = line.spans.iter().find(|s| s.content == " (85%)");
        assert_eq!(percent.map(|s| s.style), Some(WARNING));
    }
}
