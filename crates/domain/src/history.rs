//! What History is asked for: words to find and filters, each optional. The store turns a
//! query into SQL; the words become a full-text expression here, where a person's text is
//! always taken as words, whatever FTS5 syntax it holds.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::approval::Status;
use crate::ids::GrantId;
use crate::limits::FieldError;
use crate::on_screen::Presented;

/// The longest search text taken (characters): longer text is refused, not cut.
pub const MAX_SEARCH_CHARS: usize = 1_000;
/// The most words a search may hold.
pub const MAX_SEARCH_WORDS: usize = 32;

/// A History query: every part that is set must hold for a call to be listed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct HistoryQuery {
    /// Words in what was asked or what came back: titles, commands, paths, raw input, the
    /// reason, the result. Every word must appear (the last may be the start of a word).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub text: Option<String>,
    /// The agent's name as it gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub agent: Option<String>,
    /// The project (the agent's working directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub project: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub session: Option<String>,
    /// The canonical tool address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub outcome: Option<Outcome>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub decider: Option<Decider>,
    /// Only calls this watching rule would have decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub watched_by: Option<GrantId>,
    /// Only calls whose result says they failed (a non-zero exit, an error).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[ts(as = "Option<bool>", optional)]
    pub failed: bool,
    /// Decided at or after (UTC unix ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub since: Option<i64>,
    /// Decided before (UTC unix ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub until: Option<i64>,
}

/// A page of History's answer to a query.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct HistoryPage {
    pub calls: Vec<Presented>,
    /// The query in words ("approved by a rule, Codex").
    pub in_words: String,
}

/// How many calls a History query matches in all: asked for after its first page, so the
/// rows never wait on the count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct HistoryCount {
    #[ts(type = "number")]
    pub total: i64,
    /// `total` is where counting stopped: more match.
    pub at_least: bool,
}

/// What History's filters offer to pick from: the agents and projects of recent decisions.
/// Any other value can still be typed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct HistoryFacets {
    /// Most decisions first.
    pub agents: Vec<String>,
    pub projects: Vec<String>,
}

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Outcome {
    Approved,
    Declined,
    Expired,
    /// Its requester withdrew it (stored as `cancelled`).
    Withdrawn,
}

impl Outcome {
    /// The status a call with this outcome has.
    pub fn status(self) -> Status {
        match self {
            Outcome::Approved => Status::Approved,
            Outcome::Declined => Status::Declined,
            Outcome::Expired => Status::Expired,
            Outcome::Withdrawn => Status::Cancelled,
        }
    }
}

/// Who ended a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case", tag = "kind")]
#[ts(export)]
pub enum Decider {
    /// A person at the console.
    Person,
    /// Any standing rule.
    AnyRule,
    /// This rule.
    Rule { id: GrantId },
    /// Nobody: it ran out of time.
    Expiry,
}

impl HistoryQuery {
    /// Whether anything narrows History (otherwise it is the whole of it, runs as one card).
    pub fn is_empty(&self) -> bool {
        self.words().is_empty()
            && HistoryQuery {
                text: None,
                ..self.clone()
            } == HistoryQuery::default()
    }

    /// The search text's words, in order.
    pub fn words(&self) -> Vec<&str> {
        self.text
            .as_deref()
            .map(|t| t.split_whitespace().collect())
            .unwrap_or_default()
    }

    /// Refuses a query no search should run: text too long or of too many words, an empty
    /// filter value, a date range that ends before it starts.
    pub fn check(&self) -> Result<(), FieldError> {
        if let Some(text) = &self.text {
            if text.chars().count() > MAX_SEARCH_CHARS {
                return Err(FieldError::new(
                    "text",
                    format!("at most {MAX_SEARCH_CHARS} characters"),
                ));
            }
            if self.words().len() > MAX_SEARCH_WORDS {
                return Err(FieldError::new(
                    "text",
                    format!("at most {MAX_SEARCH_WORDS} words"),
                ));
            }
        }
        for (field, value) in [
            ("agent", &self.agent),
            ("project", &self.project),
            ("session", &self.session),
            ("tool", &self.tool),
        ] {
            if value.as_deref().is_some_and(str::is_empty) {
                return Err(FieldError::new(field, "empty: leave it out to match any"));
            }
        }
        if let (Some(since), Some(until)) = (self.since, self.until)
            && until < since
        {
            return Err(FieldError::new("until", "before `since`"));
        }
        Ok(())
    }

    /// The words as an FTS5 expression in which each is a quoted string, never syntax: `"`,
    /// `*`, `NEAR`, `AND`, `:` and brackets are only text. The last word also matches the
    /// start of a longer word, as a search box does while typing. `None` without words.
    pub fn fts_match(&self) -> Option<String> {
        let words = self.words();
        let last = words.len().checked_sub(1)?;
        let quoted: Vec<String> = words
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let w = w.replace('"', "\"\"");
                if i == last {
                    format!("\"{w}\"*")
                } else {
                    format!("\"{w}\"")
                }
            })
            .collect();
        Some(quoted.join(" "))
    }

    /// The words as a PostgreSQL `tsquery` over History's `search` column, which holds each
    /// run of letters and digits as a lowercase word (what SQLite's tokenizer keeps, but for
    /// its folding of accents): each word's runs in order (`<->`), every word required, the
    /// last run also as a prefix. Each run is quoted, so nothing is read as syntax. `None`
    /// without words; a query of words without letters or digits matches nothing.
    pub fn ts_match(&self) -> Option<String> {
        let words = self.words();
        let last = words.len().checked_sub(1)?;
        let parts: Vec<String> = words
            .iter()
            .enumerate()
            .filter_map(|(i, w)| {
                let runs: Vec<String> = w
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|r| !r.is_empty())
                    .map(|r| format!("'{}'", r.to_lowercase()))
                    .collect();
                let mut phrase = runs.join(" <-> ");
                if phrase.is_empty() {
                    return None;
                }
                if i == last {
                    phrase.push_str(":*");
                }
                Some(if runs.len() > 1 {
                    format!("({phrase})")
                } else {
                    phrase
                })
            })
            .collect();
        Some(parts.join(" & "))
    }

    /// The query in words, as History says it above its list ("approved by a rule, Codex,
    /// matching “cargo”"). Dates are left to the caller, who knows the person's time zone.
    pub fn in_words(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        match (self.outcome, &self.decider) {
            (Some(o), Some(d)) => parts.push(format!("{} {}", outcome_word(o), decider_words(d))),
            (Some(o), None) => parts.push(outcome_word(o).to_owned()),
            (None, Some(Decider::Expiry)) => parts.push("expired unanswered".to_owned()),
            (None, Some(d)) => parts.push(format!("decided {}", decider_words(d))),
            (None, None) => {}
        }
        if let Some(agent) = &self.agent {
            parts.push(agent.clone());
        }
        if let Some(project) = &self.project {
            parts.push(format!("in {project}"));
        }
        if let Some(session) = &self.session {
            parts.push(format!("session {session}"));
        }
        if let Some(tool) = &self.tool {
            parts.push(tool.clone());
        }
        if let Some(id) = &self.watched_by {
            parts.push(format!("rule {id} watching would have decided"));
        }
        if self.failed {
            parts.push("failed".to_owned());
        }
        if !self.words().is_empty() {
            parts.push(format!("matching “{}”", self.words().join(" ")));
        }
        if parts.is_empty() {
            "every call".to_owned()
        } else {
            parts.join(", ")
        }
    }
}

fn outcome_word(o: Outcome) -> &'static str {
    match o {
        Outcome::Approved => "approved",
        Outcome::Declined => "declined",
        Outcome::Expired => "expired",
        Outcome::Withdrawn => "withdrawn",
    }
}

fn decider_words(d: &Decider) -> String {
    match d {
        Decider::Person => "by you".to_owned(),
        Decider::AnyRule => "by a rule".to_owned(),
        Decider::Rule { id } => format!("by rule {id}"),
        Decider::Expiry => "by expiry".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(t: &str) -> HistoryQuery {
        HistoryQuery {
            text: Some(t.to_owned()),
            ..HistoryQuery::default()
        }
    }

    #[test]
    fn fts_syntax_is_only_words() {
        assert_eq!(text("  ").fts_match(), None);
        assert_eq!(text("cargo").fts_match().unwrap(), "\"cargo\"*");
        assert_eq!(
            text("a\"b NEAR( * c:d").fts_match().unwrap(),
            "\"a\"\"b\" \"NEAR(\" \"*\" \"c:d\"*"
        );
        assert_eq!(text("\"").fts_match().unwrap(), "\"\"\"\"*");
    }

    #[test]
    fn tsquery_syntax_is_only_words() {
        assert_eq!(text("  ").ts_match(), None);
        assert_eq!(text("Cargo").ts_match().unwrap(), "'cargo':*");
        assert_eq!(
            text("a'b NEAR( * c:d !x|y").ts_match().unwrap(),
            "('a' <-> 'b') & 'near' & ('c' <-> 'd') & ('x' <-> 'y':*)"
        );
        assert_eq!(text("&& ' :*").ts_match().unwrap(), "");
    }

    #[test]
    fn bad_queries_name_their_field() {
        assert_eq!(
            text(&"x".repeat(MAX_SEARCH_CHARS + 1))
                .check()
                .unwrap_err()
                .field,
            "text"
        );
        assert_eq!(
            text(&"a ".repeat(MAX_SEARCH_WORDS + 1))
                .check()
                .unwrap_err()
                .field,
            "text"
        );
        let q = HistoryQuery {
            agent: Some(String::new()),
            ..HistoryQuery::default()
        };
        assert_eq!(q.check().unwrap_err().field, "agent");
        let q = HistoryQuery {
            since: Some(10),
            until: Some(5),
            ..HistoryQuery::default()
        };
        assert_eq!(q.check().unwrap_err().field, "until");
        assert!(text("fine").check().is_ok());
    }

    #[test]
    fn a_query_says_itself_in_words() {
        let q = HistoryQuery {
            outcome: Some(Outcome::Approved),
            decider: Some(Decider::AnyRule),
            agent: Some("Codex".into()),
            text: Some("cargo test".into()),
            ..HistoryQuery::default()
        };
        assert_eq!(
            q.in_words(),
            "approved by a rule, Codex, matching “cargo test”"
        );
        assert_eq!(HistoryQuery::default().in_words(), "every call");
        assert!(text("   ").is_empty());
        assert!(!text("x").is_empty());
    }
}
