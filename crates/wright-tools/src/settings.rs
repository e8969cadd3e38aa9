//! What the user's settings say about how the tools run, in one value the command line
//! resolves once and every front end (exec, `wright tool`, the interactive session) applies the
//! same way.

use std::io;
use std::path::{Path, PathBuf};

use crate::secrets::SecretMasker;
use crate::{ProtectedPath, SandboxPolicy, ToolContext, ToolRegistry};
use wright_checker::CommandPolicy;

/// The tool settings: the dangerous-command checker's rules, the credential masker, how Bash
/// is confined and which directories outside the project the tools may use.
#[derive(Debug, Clone, Default)]
pub struct ToolSettings {
    /// What the checker refuses or lets through beyond its builtin rules (`[bash]`).
    pub command_policy: CommandPolicy,
    /// What is masked in results (`[secrets]`, the configured keys).
    pub masker: SecretMasker,
    /// How Bash commands are confined (`[sandbox]`).
    pub sandbox: SandboxPolicy,
    /// Directories outside the project the tools may use too (`allow_outside_project`).
    pub extra_roots: Vec<PathBuf>,
    /// What the tools may not change besides the project's own protected paths (issue 12):
    /// the user's settings, `$WRIGHT_HOME`, the scripts hooks run.
    pub protected: Vec<ProtectedPath>,
    /// Where code intelligence caches its parses (`$WRIGHT_HOME/cache/code`).
    pub code_cache: Option<PathBuf>,
    /// Whether a session warms that cache in the background when its first round starts.
    pub index_code_on_start: bool,
}

impl ToolSettings {
    /// A context for the project at `root` with these settings applied; fails when the
    /// project or an extra root cannot be opened (the error names it).
    pub fn context(&self, root: &Path) -> io::Result<ToolContext> {
        ToolContext::new(root)?
            .with_command_policy(self.command_policy.clone())
            .with_sandbox(self.sandbox.clone())
            .with_protected(self.protected.clone())
            .with_code_cache(self.code_cache.clone())
            .with_code_warm_up(self.index_code_on_start)
            .with_extra_roots(self.extra_roots.clone())
    }

    /// The builtin tools with these settings applied.
    pub fn registry(&self) -> ToolRegistry {
        ToolRegistry::builtin().with_secrets(self.masker.clone())
    }
}
