//! What the user's settings say about how the tools run, in one value the command line
//! resolves once and every front end (exec, `wright tool`, the interactive session) applies the
//! same way.

use std::io;
use std::path::Path;

use crate::safety::CommandPolicy;
use crate::secrets::SecretMasker;
use crate::{ToolContext, ToolRegistry};

/// The tool settings: the dangerous-command checker's rules and the credential masker.
#[derive(Debug, Clone, Default)]
pub struct ToolSettings {
    /// What the checker refuses or lets through beyond its builtin rules (`[bash]`).
    pub command_policy: CommandPolicy,
    /// What is masked in results (`[secrets]`, the configured keys).
    pub masker: SecretMasker,
}

impl ToolSettings {
    /// A context for the project at `root` with these settings applied.
    pub fn context(&self, root: &Path) -> io::Result<ToolContext> {
        Ok(ToolContext::new(root)?.with_command_policy(self.command_policy.clone()))
    }

    /// The builtin tools with these settings applied.
    pub fn registry(&self) -> ToolRegistry {
        ToolRegistry::builtin().with_secrets(self.masker.clone())
    }
}
