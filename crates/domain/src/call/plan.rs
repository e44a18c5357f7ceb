//! A plan an agent asks the person to approve before it acts: Claude Code's `ExitPlanMode`,
//! Copilot CLI's and Gemini CLI's `exit_plan_mode`. The card shows the plan's Markdown
//! (sanitised where it is drawn) and only the choices the agent's channel can carry.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::super::limits::{FieldError, MAX_PATH_BYTES, check_len};

/// A plan's Markdown, at most: a longer one is refused, and the agent asks in its own way.
pub const MAX_PLAN_BYTES: usize = 512 * 1024;
/// Modes a plan's approval may choose from, at most.
pub const MAX_PLAN_MODES: usize = 8;

/// The fields of a plan card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct PlanCall {
    pub title: String,
    /// The plan, in Markdown, as the agent wrote it.
    pub plan: String,
    /// The file the agent keeps it in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub path: Option<String>,
    /// What approving may also set, as the agent's channel carries it (Claude Code: the
    /// permission mode the session goes on in); none when approving only approves.
    #[serde(default)]
    pub modes: Vec<PlanMode>,
    /// Whether words sent back with "keep planning" reach the model.
    #[serde(default)]
    pub feedback: bool,
}

/// A mode the agent goes on in once the plan is approved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct PlanMode {
    /// The agent's own name for it (`acceptEdits`).
    pub id: String,
    /// What it means, for the person ("Approve, and let it edit files without asking").
    pub label: String,
}

impl PlanCall {
    /// Checks what serde cannot: a plan that is not empty and within [`MAX_PLAN_BYTES`], its
    /// path's length, and modes named once each.
    pub fn validate(&self, field: &str) -> Result<(), FieldError> {
        check_len(&format!("{field}.plan"), &self.plan, MAX_PLAN_BYTES)?;
        if self.plan.trim().is_empty() {
            return Err(FieldError::new(format!("{field}.plan"), "is empty"));
        }
        if let Some(p) = &self.path {
            check_len(&format!("{field}.path"), p, MAX_PATH_BYTES)?;
        }
        if self.modes.len() > MAX_PLAN_MODES {
            return Err(FieldError::new(
                format!("{field}.modes"),
                format!("more than {MAX_PLAN_MODES} modes ({})", self.modes.len()),
            ));
        }
        for (i, m) in self.modes.iter().enumerate() {
            let at = format!("{field}.modes[{i}]");
            if m.id.is_empty() || m.label.trim().is_empty() {
                return Err(FieldError::new(at, "needs an id and a label"));
            }
            check_len(&format!("{at}.label"), &m.label, 500)?;
            check_len(&format!("{at}.id"), &m.id, 100)?;
            if self.modes[..i].iter().any(|n| n.id == m.id) {
                return Err(FieldError::new(at, "is offered twice"));
            }
        }
        Ok(())
    }

    /// The mode called `id`, if approving may choose it.
    pub fn mode(&self, id: &str) -> Option<&PlanMode> {
        self.modes.iter().find(|m| m.id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(text: &str) -> PlanCall {
        PlanCall {
            title: "Claude Code's plan".into(),
            plan: text.into(),
            path: Some("/home/me/.claude/plans/auth.md".into()),
            modes: vec![
                PlanMode {
                    id: "acceptEdits".into(),
                    label: "Approve, and let it edit files without asking".into(),
                },
                PlanMode {
                    id: "default".into(),
                    label: "Approve, and ask before each edit".into(),
                },
            ],
            feedback: true,
        }
    }

    #[test]
    fn a_plan_within_its_bounds_is_valid_and_names_its_modes() {
        let p = plan("## Refactor auth\n1. Extract the session store\n");
        p.validate("call").unwrap();
        assert_eq!(p.mode("default").map(|m| m.id.as_str()), Some("default"));
        assert!(
            p.mode("bypassPermissions").is_none(),
            "only the modes offered"
        );
    }

    #[test]
    fn an_empty_huge_or_doubled_plan_is_refused() {
        assert!(plan("  \n").validate("call").is_err());
        let huge = plan(&"x".repeat(1024 * 1024));
        assert_eq!(huge.validate("call").unwrap_err().field, "call.plan");
        let mut twice = plan("p");
        twice.modes[1].id = "acceptEdits".into();
        assert!(twice.validate("call").is_err());
        let mut nameless = plan("p");
        nameless.modes[0].label = " ".into();
        assert!(nameless.validate("call").is_err());
    }
}
