//! What a session's model calls cost: prices per model (configured, else built in) applied to
//! the usage recorded for each call, per kind of call (steps, summaries) — what `/cost` and the
//! status line after a round show.

use std::collections::HashMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use wright_protocol::Usage;
use wright_store::{Record, UsageKind};

/// Prices are quoted per this many tokens.
const TOKENS_PER_PRICE_UNIT: f64 = 1_000_000.0;

/// What a model charges, in US dollars per million tokens.
///
/// In a settings file: `[pricing."model-name"]` with `input = 3.0`, `output = 15.0` and
/// optionally `cached_input = 0.3` and `cache_write = 3.75`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// Prompt tokens not served from the provider's cache.
    pub input: f64,
    /// Tokens the model writes.
    pub output: f64,
    /// Prompt tokens read from the provider's cache; `None` bills them at `input`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input: Option<f64>,
    /// Prompt tokens written to the provider's cache (Anthropic bills them above `input`);
    /// `None` bills them at `input`, as providers without a surcharge do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
}

impl Price {
    /// Whether every price is a finite number of at least 0.
    pub fn is_valid(&self) -> bool {
        let valid = |p: f64| p.is_finite() && p >= 0.0;
        valid(self.input)
            && valid(self.output)
            && self.cached_input.is_none_or(valid)
            && self.cache_write.is_none_or(valid)
    }
}

/// A price whose cache writes cost what plain input does (OpenAI, DeepSeek: no surcharge).
const fn price(input: f64, cached_input: f64, output: f64) -> Price {
    Price {
        input,
        output,
        cached_input: Some(cached_input),
        cache_write: None,
    }
}

/// A price with a surcharge on cache writes. Anthropic bills a write to its 5-minute prompt
/// cache (the `ephemeral` cache wright asks for) at 1.25 × `input` and a read from it at
/// 0.1 × `input`; the figures are written out so that they are exact.
const fn cache_write_price(input: f64, cached_input: f64, cache_write: f64, output: f64) -> Price {
    Price {
        input,
        output,
        cached_input: Some(cached_input),
        cache_write: Some(cache_write),
    }
}

/// Prices of a few common models, so cost shows without configuration.
///
/// These are the providers' published list prices (USD per million tokens) as of 2026-11; they
/// are to be checked against the providers' pricing pages, and change without notice. A
/// `[pricing."name"]` entry in a settings file always wins over them.
pub fn builtin_prices() -> Vec<(&'static str, Price)> {
    vec![
        ("gpt-4.1", price(2.0, 0.5, 8.0)),
        ("gpt-4.1-mini", price(0.4, 0.1, 1.6)),
        ("gpt-4o", price(2.5, 1.25, 10.0)),
        ("gpt-4o-mini", price(0.15, 0.075, 0.6)),
        ("o3", price(2.0, 0.5, 8.0)),
        ("claude-sonnet-4-5", cache_write_price(3.0, 0.3, 3.75, 15.0)),
        ("claude-opus-4-1", cache_write_price(15.0, 1.5, 18.75, 75.0)),
        ("claude-haiku-4-5", cache_write_price(1.0, 0.1, 1.25, 5.0)),
        ("deepseek-chat", price(0.28, 0.028, 0.42)),
        ("deepseek-reasoner", price(0.28, 0.028, 0.42)),
    ]
}

/// The price of `model`: a configured price of that exact name wins; then a built-in price of
/// that name; then the built-in model the name is a dated snapshot of (`gpt-4.1-2025-04-14` →
/// `gpt-4.1`, `claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`; the longest such name wins).
/// A router's `vendor/` prefix (`openai/gpt-4o`) is ignored for built-in prices. Variants that
/// are not snapshots (`o3-mini`, `gpt-4.1-nano`) have no built-in price: they cost differently.
pub fn price_for(model: &str, configured: &HashMap<String, Price>) -> Option<Price> {
    if let Some(price) = configured.get(model) {
        return Some(*price);
    }
    let builtin = builtin_prices();
    let bare = model.rsplit('/').next().unwrap_or(model);
    if let Some((_, price)) = builtin.iter().find(|(name, _)| *name == bare) {
        return Some(*price);
    }
    builtin
        .iter()
        .filter(|(name, _)| bare.strip_prefix(name).is_some_and(is_snapshot_suffix))
        .max_by_key(|(name, _)| name.len())
        .map(|(_, price)| *price)
}

/// `-2025-04-14`, `-20250929`, `-latest`: what providers append to name one model's snapshot.
fn is_snapshot_suffix(rest: &str) -> bool {
    match rest.strip_prefix('-') {
        Some("latest") => true,
        Some(rest) => rest.starts_with(|c: char| c.is_ascii_digit()),
        None => false,
    }
}

/// What `usage` costs at `price`, in US dollars. `prompt_tokens` holds the cache reads and
/// writes too (see [`Usage`]): reads are billed at `cached_input`, writes at `cache_write`,
/// the rest at `input` (a missing price bills its tokens at `input`). Counts a provider got
/// wrong, reads and writes past the prompt, are cut to what the prompt holds.
pub fn usage_cost(usage: &Usage, price: &Price) -> f64 {
    let read = usage
        .cached_prompt_tokens
        .unwrap_or(0)
        .min(usage.prompt_tokens);
    let written = usage
        .cache_creation_tokens
        .unwrap_or(0)
        .min(usage.prompt_tokens - read);
    let uncached = usage.prompt_tokens - read - written;
    let read_price = price.cached_input.unwrap_or(price.input);
    let write_price = price.cache_write.unwrap_or(price.input);
    (uncached as f64 * price.input
        + read as f64 * read_price
        + written as f64 * write_price
        + usage.completion_tokens as f64 * price.output)
        / TOKENS_PER_PRICE_UNIT
}

/// The calls of one kind, their tokens and what they cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KindCost {
    /// Model calls that reported usage.
    pub calls: u64,
    /// Their tokens, summed.
    pub usage: Usage,
    /// Their cost in US dollars; `None` when a call was to a model without a known price.
    pub cost_usd: Option<f64>,
}

impl Default for KindCost {
    /// No calls, which cost nothing.
    fn default() -> Self {
        Self {
            calls: 0,
            usage: Usage::default(),
            cost_usd: Some(0.0),
        }
    }
}

impl KindCost {
    fn add(&mut self, usage: &Usage, cost: Option<f64>) {
        self.calls += 1;
        self.usage.add(usage);
        self.cost_usd = self.cost_usd.zip(cost).map(|(sum, cost)| sum + cost);
    }
}

/// A session's tokens and cost, per kind of call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CostReport {
    /// The ReAct steps of the rounds.
    pub steps: KindCost,
    /// The compaction summaries.
    pub summaries: KindCost,
    /// The commit messages (`[git]`).
    pub commits: KindCost,
    /// The sub-agents' calls (the Task tool).
    pub subagents: KindCost,
    /// Everything.
    pub total: KindCost,
    /// Models called without a known price, in the order first called; their calls make the
    /// costs `None`.
    pub unpriced_models: Vec<String>,
}

/// Adds up the usage records among `records`. A record that names no model (written before
/// records did) was a call to `default_model`.
pub fn session_cost(
    records: &[Record],
    default_model: &str,
    prices: &HashMap<String, Price>,
) -> CostReport {
    let mut report = CostReport::default();
    for record in records {
        let Record::Usage {
            usage, kind, model, ..
        } = record
        else {
            continue;
        };
        let model = model.as_deref().unwrap_or(default_model);
        let cost = price_for(model, prices).map(|price| usage_cost(usage, &price));
        if cost.is_none() && !report.unpriced_models.iter().any(|m| m == model) {
            report.unpriced_models.push(model.to_string());
        }
        match kind {
            UsageKind::Step => report.steps.add(usage, cost),
            UsageKind::Summary => report.summaries.add(usage, cost),
            UsageKind::Commit => report.commits.add(usage, cost),
            UsageKind::Subagent => report.subagents.add(usage, cost),
        }
        report.total.add(usage, cost);
    }
    report
}

/// What `usage` says of the provider's prompt cache, each count written by `number`:
/// `1000 cached, 200 written to cache`, either part alone, or `None` when the provider
/// reported neither. The one wording for cache counts wherever usage is shown.
pub fn cache_note(usage: &Usage, number: impl Fn(u64) -> String) -> Option<String> {
    let read = usage
        .cached_prompt_tokens
        .map(|n| format!("{} cached", number(n)));
    let written = usage
        .cache_creation_tokens
        .map(|n| format!("{} written to cache", number(n)));
    let parts: Vec<String> = read.into_iter().chain(written).collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// `$0.0123`: four decimals, as the costs of single calls are fractions of a cent.
pub fn format_usd(cost: f64) -> String {
    format!("${cost:.4}")
}

impl fmt::Display for KindCost {
    /// `3 calls, 1200 in (1000 cached, 100 written to cache), 85 out, $0.0042`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let calls = match self.calls {
            1 => "1 call".to_string(),
            n => format!("{n} calls"),
        };
        let cached = cache_note(&self.usage, |n| n.to_string())
            .map(|note| format!(" ({note})"))
            .unwrap_or_default();
        let cost = self
            .cost_usd
            .map_or_else(|| "cost unknown".to_string(), format_usd);
        write!(
            f,
            "{calls}, {} in{cached}, {} out, {cost}",
            self.usage.prompt_tokens, self.usage.completion_tokens
        )
    }
}

impl fmt::Display for CostReport {
    /// The `/cost` report: one line per kind and the total, then what to do about models
    /// without a price.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "steps:     {}", self.steps)?;
        writeln!(f, "summaries: {}", self.summaries)?;
        if self.commits.calls > 0 {
            writeln!(f, "commits:   {}", self.commits)?;
        }
        if self.subagents.calls > 0 {
            writeln!(f, "subagents: {}", self.subagents)?;
        }
        writeln!(f, "total:     {}", self.total)?;
        for model in &self.unpriced_models {
            writeln!(
                f,
                "No price is known for {model}; add [pricing.\"{model}\"] with input and output \
                 (USD per million tokens) to .wright/config.toml."
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;
    use pretty_assertions::assert_eq;

    fn usage(prompt: u64, cached: Option<u64>, completion: u64) -> Usage {
        Usage {
            prompt_tokens: prompt,
            completion_tokens: completion,
            total_tokens: prompt + completion,
            cached_prompt_tokens: cached,
            cache_creation_tokens: None,
        }
    }

    /// An Anthropic-style usage: `prompt` counts the reads and writes too.
    fn cached_usage(prompt: u64, read: u64, written: u64, completion: u64) -> Usage {
        Usage {
            cache_creation_tokens: Some(written),
            ..usage(prompt, Some(read), completion)
        }
    }

    fn record(kind: UsageKind, model: Option<&str>, usage: Usage) -> Record {
        Record::Usage {
            at: Utc::now(),
            usage,
            kind,
            model: model.map(str::to_string),
            local_estimate: None,
        }
    }

    #[test]
    fn a_configured_price_wins_over_the_builtin_one() {
        let mine = Price {
            input: 1.0,
            output: 1.0,
            cached_input: None,
            cache_write: None,
        };
        let configured = HashMap::from([("gpt-4.1".to_string(), mine)]);
        assert_eq!(price_for("gpt-4.1", &configured), Some(mine));
        assert_eq!(
            price_for("gpt-4.1", &HashMap::new()),
            Some(price(2.0, 0.5, 8.0))
        );
    }

    #[test]
    fn a_dated_snapshot_finds_the_longest_builtin_name() {
        let none = HashMap::new();
        assert_eq!(
            price_for("gpt-4.1-2025-04-14", &none),
            Some(price(2.0, 0.5, 8.0))
        );
        assert_eq!(
            price_for("gpt-4.1-mini-2025-04-14", &none),
            Some(price(0.4, 0.1, 1.6))
        );
        assert_eq!(
            price_for("claude-sonnet-4-5-20250929", &none),
            Some(cache_write_price(3.0, 0.3, 3.75, 15.0))
        );
        assert_eq!(
            price_for("openai/gpt-4o-mini", &none),
            Some(price(0.15, 0.075, 0.6))
        );
    }

    #[test]
    fn other_variants_and_unknown_models_have_no_price() {
        let none = HashMap::new();
        assert_eq!(price_for("o3-mini", &none), None);
        assert_eq!(price_for("gpt-4.1-nano", &none), None);
        assert_eq!(price_for("qwen2.5-coder:7b", &none), None);
    }

    #[test]
    fn cached_prompt_tokens_are_billed_at_the_cached_price() {
        let price = price(2.0, 0.5, 8.0);
        assert_eq!(
            usage_cost(&usage(1_000_000, Some(500_000), 250_000), &price),
            1.0 + 0.25 + 2.0
        );
        let no_cache_price = Price {
            cached_input: None,
            cache_write: None,
            ..price
        };
        assert_eq!(
            usage_cost(&usage(1_000_000, Some(500_000), 0), &no_cache_price),
            2.0
        );
    }

    #[test]
    fn cache_writes_are_billed_at_the_cache_write_price_and_reads_at_the_cached_price() {
        // Binary fractions, so that the sums are exact.
        let price = cache_write_price(4.0, 0.5, 5.0, 16.0);
        // 1M prompt tokens: 250k fresh, 500k read from the cache, 250k written to it.
        assert_eq!(
            usage_cost(&cached_usage(1_000_000, 500_000, 250_000, 125_000), &price),
            1.0 + 0.25 + 1.25 + 2.0
        );
    }

    #[test]
    fn without_a_cache_write_price_writes_are_billed_as_plain_input() {
        let price = price(4.0, 0.5, 16.0);
        assert_eq!(
            usage_cost(&cached_usage(1_000_000, 500_000, 250_000, 0), &price),
            1.0 + 0.25 + 1.0
        );
    }

    #[test]
    fn cache_counts_past_the_prompt_are_cut_to_it() {
        let price = cache_write_price(4.0, 0.5, 8.0, 16.0);
        // Reads fill the prompt; the writes have no tokens left to be.
        assert_eq!(
            usage_cost(&cached_usage(1_000_000, 2_000_000, 500_000, 0), &price),
            0.5
        );
        // Writes fill what the reads leave.
        assert_eq!(
            usage_cost(&cached_usage(1_000_000, 500_000, 900_000, 0), &price),
            0.25 + 4.0
        );
    }

    #[test]
    fn builtin_anthropic_prices_bill_cache_writes_at_a_quarter_more_than_input() {
        let none = HashMap::new();
        for model in ["claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"] {
            let price = price_for(model, &none).unwrap();
            assert_eq!(price.cache_write, Some(price.input * 1.25), "{model}");
            let read = price.cached_input.unwrap();
            assert!((read - price.input * 0.1).abs() < 1e-12, "{model}");
        }
        for model in ["gpt-4.1", "gpt-4o-mini", "o3", "deepseek-chat"] {
            assert_eq!(
                price_for(model, &none).unwrap().cache_write,
                None,
                "{model}"
            );
        }
    }

    #[test]
    fn a_claude_call_that_reads_and_writes_the_cache_costs_the_list_price() {
        // Sonnet 4.5: $3 input, $0.30 cache read, $3.75 cache write, $15 output.
        let price = price_for("claude-sonnet-4-5-20250929", &HashMap::new()).unwrap();
        let usage = cached_usage(1_300, 1_000, 200, 50);
        // 100 × 3 + 1000 × 0.3 + 200 × 3.75 + 50 × 15 = 300 + 300 + 750 + 750 per million.
        assert_eq!(
            format!("{:.10}", usage_cost(&usage, &price)),
            "0.0021000000"
        );
    }

    #[test]
    fn the_cache_note_names_reads_and_writes_only_when_reported() {
        let plain = |n: u64| n.to_string();
        assert_eq!(cache_note(&usage(10, None, 1), plain), None);
        assert_eq!(
            cache_note(&usage(10, Some(4), 1), plain).as_deref(),
            Some("4 cached")
        );
        assert_eq!(
            cache_note(&cached_usage(10, 4, 3, 1), plain).as_deref(),
            Some("4 cached, 3 written to cache")
        );
        let written_only = Usage {
            cache_creation_tokens: Some(3),
            ..usage(10, None, 1)
        };
        assert_eq!(
            cache_note(&written_only, plain).as_deref(),
            Some("3 written to cache")
        );
    }

    #[test]
    fn the_report_shows_cache_writes_and_prices_them() {
        let records = [record(
            UsageKind::Step,
            Some("claude-haiku-4-5"),
            cached_usage(1_000_000, 600_000, 400_000, 0),
        )];
        let report = session_cost(&records, "claude-haiku-4-5", &HashMap::new());
        // 600k × $0.10 + 400k × $1.25 per million.
        assert_eq!(
            report.to_string(),
            "steps:     1 call, 1000000 in (600000 cached, 400000 written to cache), 0 out, $0.5600\n\
             summaries: 0 calls, 0 in, 0 out, $0.0000\n\
             total:     1 call, 1000000 in (600000 cached, 400000 written to cache), 0 out, $0.5600\n"
        );
    }

    #[test]
    fn session_cost_adds_up_each_kind_with_its_own_model() {
        let big = Price {
            input: 4.0,
            output: 8.0,
            cached_input: None,
            cache_write: None,
        };
        let small = Price {
            input: 1.0,
            output: 2.0,
            cached_input: None,
            cache_write: None,
        };
        let configured = HashMap::from([("big".to_string(), big), ("small".to_string(), small)]);
        let records = [
            record(UsageKind::Step, None, usage(500_000, None, 250_000)),
            Record::RoundEnd {
                at: Utc::now(),
                status: wright_store::RoundStatus::Finished,
            },
            record(
                UsageKind::Summary,
                Some("small"),
                usage(1_000_000, None, 500_000),
            ),
            record(UsageKind::Step, Some("big"), usage(250_000, None, 0)),
        ];
        assert_eq!(
            session_cost(&records, "big", &configured),
            CostReport {
                steps: KindCost {
                    calls: 2,
                    usage: usage(750_000, None, 250_000),
                    cost_usd: Some(2.0 + 2.0 + 1.0),
                },
                summaries: KindCost {
                    calls: 1,
                    usage: usage(1_000_000, None, 500_000),
                    cost_usd: Some(2.0),
                },
                commits: KindCost::default(),
                subagents: KindCost::default(),
                total: KindCost {
                    calls: 3,
                    usage: usage(1_750_000, None, 750_000),
                    cost_usd: Some(7.0),
                },
                unpriced_models: Vec::new(),
            }
        );
    }

    #[test]
    fn a_call_to_a_model_without_a_price_makes_its_kind_and_the_total_unknown() {
        let records = [
            record(UsageKind::Step, Some("mystery"), usage(10, None, 5)),
            record(UsageKind::Summary, Some("gpt-4.1"), usage(0, None, 0)),
        ];
        let report = session_cost(&records, "gpt-4.1", &HashMap::new());
        assert_eq!(
            report,
            CostReport {
                steps: KindCost {
                    calls: 1,
                    usage: usage(10, None, 5),
                    cost_usd: None,
                },
                summaries: KindCost {
                    calls: 1,
                    usage: usage(0, None, 0),
                    cost_usd: Some(0.0),
                },
                commits: KindCost::default(),
                subagents: KindCost::default(),
                total: KindCost {
                    calls: 2,
                    usage: usage(10, None, 5),
                    cost_usd: None,
                },
                unpriced_models: vec!["mystery".to_string()],
            }
        );
    }

    #[test]
    fn the_report_has_a_line_per_kind_and_says_how_to_price_a_model() {
        let records = [
            record(
                UsageKind::Step,
                Some("gpt-4.1"),
                usage(1_000_000, Some(1_000_000), 0),
            ),
            record(UsageKind::Summary, Some("mystery"), usage(10, None, 5)),
        ];
        let report = session_cost(&records, "gpt-4.1", &HashMap::new());
        assert_eq!(
            report.to_string(),
            "steps:     1 call, 1000000 in (1000000 cached), 0 out, $0.5000\n\
             summaries: 1 call, 10 in, 5 out, cost unknown\n\
             total:     2 calls, 1000010 in (1000000 cached), 5 out, cost unknown\n\
             No price is known for mystery; add [pricing.\"mystery\"] with input and output \
             (USD per million tokens) to .wright/config.toml.\n"
        );
    }

    #[test]
    fn prices_must_be_finite_and_not_negative() {
        assert!(price(1.0, 0.0, 2.0).is_valid());
        assert!(!price(-1.0, 0.0, 2.0).is_valid());
        assert!(!price(1.0, f64::NAN, 2.0).is_valid());
        assert!(cache_write_price(1.0, 0.1, 1.25, 2.0).is_valid());
        assert!(!cache_write_price(1.0, 0.1, -1.25, 2.0).is_valid());
        assert!(!cache_write_price(1.0, 0.1, f64::INFINITY, 2.0).is_valid());
    }
}
