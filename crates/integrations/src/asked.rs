//! Questions as the agents' tools take them in their input: Claude Code's `AskUserQuestion`
//! (hooks reference) and Gemini CLI's `ask_user` (`packages/core/src/tools/ask-user.ts`) share
//! these fields; Gemini CLI adds a `type`.

use countersign_domain::call::{Question, QuestionOption};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AskedQuestion {
    pub question: String,
    #[serde(default)]
    pub header: Option<String>,
    /// Gemini CLI's `choice`, `text` or `yesno`.
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub options: Vec<AskedOption>,
    #[serde(default)]
    pub multi_select: bool,
}

#[derive(Deserialize)]
pub(crate) struct AskedOption {
    pub label: String,
    #[serde(default)]
    pub description: Option<String>,
}

impl AskedQuestion {
    /// The question as a card draws it, taking words of the person's own where `other`.
    pub fn drawn(self, other: bool) -> Question {
        Question {
            header: self.header,
            question: self.question,
            options: self
                .options
                .into_iter()
                .map(|o| QuestionOption {
                    label: o.label,
                    description: o.description,
                })
                .collect(),
            multi_select: self.multi_select,
            other,
        }
    }
}
