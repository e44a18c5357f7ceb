//! A question an agent asks the person, and the person's answer: Claude Code's
//! `AskUserQuestion`, Codex's `request_user_input`, Gemini CLI's `ask_user`, Copilot CLI's
//! `ask_user`. The card shows the questions as the agent asked them; an answer names only
//! options the card offered, or free text where the question takes it, and is refused
//! otherwise, so nothing reaches the agent that the person did not see.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::super::limits::{FieldError, check_len};

/// Questions in one card, at most (Claude Code asks 1 to 4, Codex up to 3).
pub const MAX_QUESTIONS: usize = 16;
/// Options of one question, at most (Claude Code offers 2 to 4; keys 1–9 pick them).
pub const MAX_OPTIONS: usize = 32;
/// A question's text.
pub const MAX_QUESTION_BYTES: usize = 4_000;
/// A header, a label.
pub const MAX_LABEL_BYTES: usize = 500;
/// An option's description.
pub const MAX_OPTION_DESCRIPTION_BYTES: usize = 2_000;
/// The free text a person types for "Other".
pub const MAX_OTHER_BYTES: usize = 4_000;

/// The tools whose hooks cannot return answers: the call is declined with the answers as the
/// reason the model reads. Gemini CLI's `ask_user` (BeforeTool decides block, ask, a rewritten
/// input or nothing: `scheduler/hook-utils.ts`); Codex's `request_user_input` (PreToolUse
/// allows only with `updatedInput`, `hooks/src/engine/output_parser.rs`); Copilot CLI's
/// `ask_user` (preToolUse: `permissionDecision`, `modifiedArgs`).
const ANSWERED_AS_REASON: &[&str] = &[
    "gemini.ask_user",
    "codex.request_user_input",
    "copilot.ask_user",
];

/// How a declined call's reason begins when it carries the person's answers: the agent is told
/// it as it stands, never as a refusal.
pub const ANSWERED: &str = "The person answered in Countersign, not through this tool";

/// Whether answers to `tool`'s questions reach the model only as a declined call's reason.
pub fn answered_as_reason(tool: &str) -> bool {
    ANSWERED_AS_REASON.contains(&tool)
}

/// The fields of a question card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct QuestionCall {
    pub title: String,
    pub questions: Vec<Question>,
}

/// One question, as the agent asked it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct Question {
    /// A short tag the agent gives it (Claude Code: at most 12 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub header: Option<String>,
    pub question: String,
    /// The choices offered; none for a question answered in words only.
    #[serde(default)]
    pub options: Vec<QuestionOption>,
    /// Whether more than one option may be chosen.
    #[serde(default)]
    pub multi_select: bool,
    /// Whether the person may answer in words of their own ("Other").
    #[serde(default)]
    pub other: bool,
}

/// One choice of a question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct QuestionOption {
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
}

/// The person's answer to one question: the options chosen, by their place on the card, and
/// the words typed for "Other".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct Answer {
    #[serde(default)]
    pub chosen: Vec<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub other: Option<String>,
}

impl QuestionCall {
    /// Checks what serde cannot: at least one question and at most [`MAX_QUESTIONS`], each
    /// answerable (an option, or free text), options at most [`MAX_OPTIONS`] with distinct
    /// labels, lengths, and question texts distinct (an answer is keyed by its question).
    pub fn validate(&self, field: &str) -> Result<(), FieldError> {
        let at = |i: usize, what: &str| format!("{field}.questions[{i}]{what}");
        if self.questions.is_empty() {
            return Err(FieldError::new(
                format!("{field}.questions"),
                "has no question",
            ));
        }
        if self.questions.len() > MAX_QUESTIONS {
            return Err(FieldError::new(
                format!("{field}.questions"),
                format!(
                    "more than {MAX_QUESTIONS} questions ({})",
                    self.questions.len()
                ),
            ));
        }
        for (i, q) in self.questions.iter().enumerate() {
            check_len(&at(i, ".question"), &q.question, MAX_QUESTION_BYTES)?;
            if q.question.trim().is_empty() {
                return Err(FieldError::new(at(i, ".question"), "is empty"));
            }
            if let Some(h) = &q.header {
                check_len(&at(i, ".header"), h, MAX_LABEL_BYTES)?;
            }
            if self.questions[..i].iter().any(|p| p.question == q.question) {
                return Err(FieldError::new(
                    at(i, ".question"),
                    "is asked twice in one card",
                ));
            }
            if q.options.is_empty() && !q.other {
                return Err(FieldError::new(
                    at(i, ".options"),
                    "has no option, and the question takes no words of the person's own",
                ));
            }
            if q.options.len() > MAX_OPTIONS {
                return Err(FieldError::new(
                    at(i, ".options"),
                    format!("more than {MAX_OPTIONS} options ({})", q.options.len()),
                ));
            }
            for (j, o) in q.options.iter().enumerate() {
                let label = at(i, &format!(".options[{j}].label"));
                check_len(&label, &o.label, MAX_LABEL_BYTES)?;
                if o.label.trim().is_empty() {
                    return Err(FieldError::new(label, "is empty"));
                }
                if q.options[..j].iter().any(|p| p.label == o.label) {
                    return Err(FieldError::new(label, "is offered twice"));
                }
                if let Some(d) = &o.description {
                    check_len(
                        &at(i, &format!(".options[{j}].description")),
                        d,
                        MAX_OPTION_DESCRIPTION_BYTES,
                    )?;
                }
            }
        }
        Ok(())
    }

    /// Checks that `answers` answer this card: one per question, each naming only options the
    /// card offered (one for a single choice), free text only where the question takes it and
    /// within [`MAX_OTHER_BYTES`], and something for every question.
    pub fn check_answers(&self, field: &str, answers: &[Answer]) -> Result<(), FieldError> {
        if answers.len() != self.questions.len() {
            return Err(FieldError::new(
                field,
                format!(
                    "answers {} questions; the card asks {}",
                    answers.len(),
                    self.questions.len()
                ),
            ));
        }
        for (i, (q, a)) in self.questions.iter().zip(answers).enumerate() {
            let at = |what: &str| format!("{field}[{i}]{what}");
            for (k, c) in a.chosen.iter().enumerate() {
                let Some(index) = usize::try_from(*c).ok().filter(|c| *c < q.options.len()) else {
                    return Err(FieldError::new(
                        at(".chosen"),
                        format!("names option {c}, which the card does not offer"),
                    ));
                };
                if a.chosen[..k]
                    .iter()
                    .any(|p| usize::try_from(*p).ok() == Some(index))
                {
                    return Err(FieldError::new(at(".chosen"), "names an option twice"));
                }
            }
            // Bounded as sent, spaces included: what is kept is what was checked.
            if let Some(text) = &a.other {
                check_len(&at(".other"), text, MAX_OTHER_BYTES)?;
            }
            let other = a.other.as_deref().map(str::trim).filter(|t| !t.is_empty());
            if other.is_some() && !q.other {
                return Err(FieldError::new(
                    at(".other"),
                    "this question takes only the options offered",
                ));
            }
            let given = a.chosen.len() + usize::from(other.is_some());
            if given == 0 {
                return Err(FieldError::new(at(""), "is not answered"));
            }
            if !q.multi_select && given > 1 {
                return Err(FieldError::new(at(""), "takes one answer"));
            }
        }
        Ok(())
    }

    /// Each question's answer in words, as Claude Code's `answers` takes them: the labels
    /// chosen, joined with `", "`, then the typed text. `answers` must have passed
    /// [`QuestionCall::check_answers`].
    pub fn answer_texts(&self, answers: &[Answer]) -> Vec<(String, String)> {
        self.questions
            .iter()
            .zip(answers)
            .map(|(q, a)| {
                let mut parts: Vec<&str> = a
                    .chosen
                    .iter()
                    .filter_map(|c| q.options.get(usize::try_from(*c).ok()?))
                    .map(|o| o.label.as_str())
                    .collect();
                if let Some(text) = a.other.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
                    parts.push(text);
                }
                (q.question.clone(), parts.join(", "))
            })
            .collect()
    }

    /// The answers as the reason of a declined call, for an agent whose answer cannot carry
    /// them: the model reads it instead of the tool's result. Each question's answers as a
    /// JSON list (labels chosen, then the typed words), keyed by the question's text, so no
    /// label holding a comma or a quote reads as two.
    pub fn answers_as_reason(&self, answers: &[Answer]) -> String {
        let said: serde_json::Map<String, Value> = self
            .questions
            .iter()
            .zip(answers)
            .map(|(q, a)| {
                let mut given: Vec<Value> = a
                    .chosen
                    .iter()
                    .filter_map(|c| q.options.get(usize::try_from(*c).ok()?))
                    .map(|o| Value::String(o.label.clone()))
                    .collect();
                if let Some(text) = a.other.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
                    given.push(Value::String(text.to_owned()));
                }
                (q.question.clone(), Value::Array(given))
            })
            .collect();
        format!(
            "{ANSWERED} (its answers, by question): {}. Treat this as the tool's \
             answer and continue with it; do not ask again.",
            Value::Object(said)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn option(label: &str) -> QuestionOption {
        QuestionOption {
            label: label.into(),
            description: None,
        }
    }

    fn card() -> QuestionCall {
        QuestionCall {
            title: "Claude Code asks".into(),
            questions: vec![
                Question {
                    header: Some("Framework".into()),
                    question: "Which framework?".into(),
                    options: vec![option("React"), option("Vue")],
                    multi_select: false,
                    other: true,
                },
                Question {
                    header: Some("Sections".into()),
                    question: "Which sections should I include?".into(),
                    options: vec![option("Introduction"), option("Conclusion")],
                    multi_select: true,
                    other: false,
                },
            ],
        }
    }

    fn answer(chosen: &[u32], other: Option<&str>) -> Answer {
        Answer {
            chosen: chosen.to_vec(),
            other: other.map(str::to_owned),
        }
    }

    #[test]
    fn a_card_as_claude_code_asks_it_is_valid_and_its_answers_read_as_its_labels() {
        let c = card();
        c.validate("call").unwrap();
        let answers = [answer(&[1], None), answer(&[0, 1], None)];
        c.check_answers("answers", &answers).unwrap();
        assert_eq!(
            c.answer_texts(&answers),
            [
                ("Which framework?".to_owned(), "Vue".to_owned()),
                (
                    "Which sections should I include?".to_owned(),
                    "Introduction, Conclusion".to_owned()
                ),
            ]
        );
        let typed = [answer(&[], Some("  Svelte ")), answer(&[1], None)];
        c.check_answers("answers", &typed).unwrap();
        assert_eq!(c.answer_texts(&typed)[0].1, "Svelte");
        let said = c.answers_as_reason(&typed);
        assert!(said.contains(r#""Which framework?":["Svelte"]"#), "{said}");
        assert!(said.starts_with(ANSWERED));
    }

    #[test]
    fn a_card_that_cannot_be_answered_or_is_too_large_is_refused() {
        let mut none = card();
        none.questions.clear();
        assert!(none.validate("call").is_err());
        let mut no_options = card();
        no_options.questions[1].options.clear();
        let e = no_options.validate("call").unwrap_err();
        assert_eq!(e.field, "call.questions[1].options");
        let mut many = card();
        many.questions[0].options = (0..1000).map(|i| option(&format!("o{i}"))).collect();
        assert!(
            many.validate("call")
                .unwrap_err()
                .message
                .contains("more than")
        );
        let mut twice = card();
        twice.questions[0].options[1].label = "React".into();
        assert!(twice.validate("call").is_err());
        let mut same = card();
        same.questions[1].question = "Which framework?".into();
        assert!(same.validate("call").is_err());
        let mut long = card();
        long.questions[0].question = "x".repeat(MAX_QUESTION_BYTES + 1);
        assert!(long.validate("call").is_err());
    }

    #[test]
    fn an_answer_names_only_what_the_card_offered() {
        let c = card();
        for (bad, why) in [
            (
                vec![answer(&[2], None), answer(&[0], None)],
                "an option not offered",
            ),
            (
                vec![answer(&[0, 1], None), answer(&[0], None)],
                "two for one choice",
            ),
            (vec![answer(&[], None), answer(&[0], None)], "nothing"),
            (
                vec![answer(&[0], None), answer(&[0], Some("mine"))],
                "words not taken",
            ),
            (vec![answer(&[0], None)], "too few"),
            (
                vec![answer(&[0], None), answer(&[0], None), answer(&[0], None)],
                "too many",
            ),
            (
                vec![answer(&[0], None), answer(&[1, 1], None)],
                "one option twice",
            ),
            (
                vec![
                    answer(&[], Some(&"x".repeat(MAX_OTHER_BYTES + 1))),
                    answer(&[0], None),
                ],
                "words too long",
            ),
            (
                vec![
                    answer(&[], Some(&format!("x{}", " ".repeat(MAX_OTHER_BYTES)))),
                    answer(&[0], None),
                ],
                "words within the bound only once trimmed",
            ),
            (
                vec![answer(&[u32::MAX], None), answer(&[0], None)],
                "far past the options",
            ),
        ] {
            assert!(c.check_answers("answers", &bad).is_err(), "{why}");
        }
    }
}
