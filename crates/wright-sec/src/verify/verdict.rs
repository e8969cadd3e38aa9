//! An agent's verdicts: the JSON list its answer must end with, checked against the
//! candidates it was given.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The most characters kept of each of a verdict's texts (the model's output is untrusted).
pub const MAX_FIELD_CHARS: usize = 2_000;

/// What an agent says of one candidate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub gid: usize,
    pub has_risk: bool,
    #[serde(default)]
    pub preconditions: String,
    #[serde(default)]
    pub trigger_path: String,
    #[serde(default)]
    pub consequences: String,
    #[serde(default)]
    pub suggestions: String,
}

/// The verdicts in `answer`, whose candidates are `gids`: the first JSON list in it whose
/// elements are objects (a list inside ```json fences, after prose, or alone). `Err` says
/// what is wrong, for the agent to correct.
pub fn parse_verdicts(answer: &str, gids: &[usize]) -> Result<Vec<Verdict>, String> {
    let list = first_list(answer).ok_or_else(|| {
        "it holds no JSON list (expected [{\"gid\": …, \"has_risk\": …}, …] or [])".to_string()
    })?;
    let mut verdicts: Vec<Verdict> = Vec::with_capacity(list.len());
    for (i, element) in list.iter().enumerate() {
        let Value::Object(object) = element else {
            return Err(format!("element {} is not an object", i + 1));
        };
        let gid = object
            .get("gid")
            .and_then(Value::as_u64)
            .and_then(|gid| usize::try_from(gid).ok())
            .ok_or_else(|| format!("element {} has no integer `gid`", i + 1))?;
        if !gids.contains(&gid) {
            return Err(format!(
                "gid {gid} is not one of the candidates given ({})",
                gids.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let has_risk = object
            .get("has_risk")
            .and_then(Value::as_bool)
            .ok_or_else(|| format!("gid {gid} has no boolean `has_risk`"))?;
        if verdicts.iter().any(|v| v.gid == gid) {
            return Err(format!("gid {gid} is judged twice"));
        }
        let text = |name: &str| -> String {
            let value = match object.get(name) {
                Some(Value::String(text)) => text.clone(),
                Some(Value::Null) | None => String::new(),
                Some(other) => other.to_string(),
            };
            value.chars().take(MAX_FIELD_CHARS).collect()
        };
        verdicts.push(Verdict {
            gid,
            has_risk,
            preconditions: text("preconditions"),
            trigger_path: text("trigger_path"),
            consequences: text("consequences"),
            suggestions: text("suggestions"),
        });
    }
    Ok(verdicts)
}

/// The first JSON array in `text` that is empty or holds an object first.
fn first_list(text: &str) -> Option<Vec<Value>> {
    for (at, _) in text.match_indices('[') {
        let mut values = serde_json::Deserializer::from_str(&text[at..]).into_iter::<Value>();
        if let Some(Ok(Value::Array(list))) = values.next()
            && list.first().is_none_or(Value::is_object)
        {
            return Some(list);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_list_is_found_in_prose_or_fences_and_checked() {
        let answer = "I looked at both.\n```json\n[{\"gid\": 3, \"has_risk\": true, \
                      \"trigger_path\": \"argv[1] → strcpy\"}, {\"gid\": 4, \"has_risk\": false}]\n```";
        let verdicts = parse_verdicts(answer, &[3, 4]).unwrap();
        assert_eq!(verdicts.len(), 2);
        assert!(verdicts[0].has_risk);
        assert_eq!(verdicts[0].trigger_path, "argv[1] → strcpy");
        assert_eq!(verdicts[1].preconditions, "");
        assert_eq!(parse_verdicts("[]", &[1]).unwrap(), vec![]);
        // `argv[1]` in prose before the list is not the list.
        let after_index = "argv[1] is copied. [{\"gid\": 1, \"has_risk\": false}]";
        assert_eq!(parse_verdicts(after_index, &[1]).unwrap().len(), 1);
    }

    #[test]
    fn what_is_wrong_is_said() {
        let problem = |answer: &str| parse_verdicts(answer, &[1, 2]).unwrap_err();
        assert!(problem("looks fine to me").contains("no JSON list"));
        assert!(problem("[{\"gid\": 9, \"has_risk\": true}]").contains("gid 9 is not one of"));
        assert!(problem("[{\"gid\": 1}]").contains("no boolean `has_risk`"));
        assert!(problem("[{\"has_risk\": true}]").contains("no integer `gid`"));
        assert!(
            problem("[{\"gid\": 1, \"has_risk\": true}, {\"gid\": 1, \"has_risk\": false}]")
                .contains("twice")
        );
    }

    #[test]
    fn long_fields_are_cut() {
        let answer = format!(
            "[{{\"gid\": 1, \"has_risk\": true, \"consequences\": \"{}\"}}]",
            "x".repeat(10_000)
        );
        let verdicts = parse_verdicts(&answer, &[1]).unwrap();
        assert_eq!(verdicts[0].consequences.chars().count(), MAX_FIELD_CHARS);
    }
}
