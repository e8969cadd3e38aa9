//! Entry points for the fuzz targets under `fuzz/` (issue 6, "Robustness"): the Edit matcher
//! without a file. Not part of the API.

use crate::matching::{self, MatchError};

/// What the matcher makes of replacing `old` by `new` in `text`: the new text, or why not.
pub fn edit_replace(text: &str, old: &str, new: &str, replace_all: bool) -> Result<String, String> {
    match matching::replace(text, old, new, replace_all) {
        Ok(replaced) => Ok(replaced.text),
        Err(MatchError::NoMatch) => Err("no match".to_string()),
        Err(MatchError::Ambiguous { lines, .. }) => Err(format!("ambiguous at {lines:?}")),
    }
}
