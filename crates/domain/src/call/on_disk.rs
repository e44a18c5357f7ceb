//! What a file held before a call changed it, as the side asking about the call read it: the
//! whole file a write replaces, where an edit lands, or why the file could not be read; and the
//! symbolic link the path goes through, when it goes through one.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{CallView, DiffCall, FileDiff, unknown, untag, variant};
use crate::limits::{FieldError, MAX_PATH_BYTES, MAX_REASON_BYTES, check_len};

/// What the asking side found at a diff's path before the call ran (Claude Code's hook reads
/// the file on the agent's machine). It is shown so the change can be judged in place, and the
/// digest binds it with the rest of the card, but it is not what runs: it is the asking side's
/// account of the file, as an ACP agent's old text is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "state", rename_all = "snake_case")]
#[ts(export)]
pub enum OnDisk {
    /// `old_text` is the whole file: the call replaces all of it with `new_text`.
    Whole,
    /// `old_text` is a fragment of the file, found between `before` and `after`.
    At(Excerpt),
    /// Something is at the path but it could not be read. A null `old_text` does not mean a
    /// new file then.
    Unreadable(Unread),
}

/// Where a fragment lies in its file, with a few lines of the file around it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct Excerpt {
    /// The line of the file (from 1) on which `before` starts.
    pub line: u32,
    /// The file's text from there up to the fragment.
    pub before: String,
    /// The file's text from the end of the fragment on.
    pub after: String,
}

/// Why a file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct Unread {
    pub reason: String,
}

/// The first symbolic link on the way to a diff's path, as the asking side found it: a directory
/// above the file, or the file itself. The change lands wherever the link points, which its
/// written path does not show, so the card says so and folder rules do not go by that path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct ThroughLink {
    /// The link: the path as written (from the working directory, when it is relative) up to
    /// and including the component that is a link.
    pub link: String,
    /// What the link says it points to, as written in it (possibly relative to the link's
    /// directory); `null` when it could not be read or is longer than a path may be.
    #[serde(deserialize_with = "Option::deserialize")]
    pub target: Option<String>,
}

impl<'de> Deserialize<'de> for OnDisk {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let (tag, fields) = untag(d, "state")?;
        Ok(match tag.as_str() {
            "whole" => match fields.keys().next() {
                None => OnDisk::Whole,
                Some(k) => return Err(D::Error::unknown_field(k, &["state"])),
            },
            "at" => OnDisk::At(variant::<D, _>(fields, "excerpt")?),
            "unreadable" => OnDisk::Unreadable(variant::<D, _>(fields, "unreadable file")?),
            other => return Err(unknown("state", other, &["whole", "at", "unreadable"])),
        })
    }
}

impl OnDisk {
    /// Checks what serde cannot: a whole file or an excerpt needs the old text it describes.
    pub(super) fn validate(&self, field: &str, diff: &FileDiff) -> Result<(), FieldError> {
        let needs_old = |what: &str| {
            if diff.old_text.is_none() {
                return Err(FieldError::new(
                    field,
                    format!("`{what}` describes an old_text, which is null"),
                ));
            }
            Ok(())
        };
        match self {
            OnDisk::Whole => needs_old("whole"),
            OnDisk::At(e) => {
                needs_old("at")?;
                if e.line == 0 {
                    return Err(FieldError::new(format!("{field}.line"), "starts at 1"));
                }
                Ok(())
            }
            OnDisk::Unreadable(u) => {
                if u.reason.trim().is_empty() {
                    return Err(FieldError::new(format!("{field}.reason"), "is empty"));
                }
                check_len(&format!("{field}.reason"), &u.reason, MAX_REASON_BYTES)
            }
        }
    }
}

impl ThroughLink {
    /// Checks what serde cannot: a link is named, and both paths are within a path's length.
    pub(super) fn validate(&self, field: &str) -> Result<(), FieldError> {
        if self.link.is_empty() {
            return Err(FieldError::new(format!("{field}.link"), "is empty"));
        }
        check_len(&format!("{field}.link"), &self.link, MAX_PATH_BYTES)?;
        if let Some(target) = &self.target {
            check_len(&format!("{field}.target"), target, MAX_PATH_BYTES)?;
        }
        Ok(())
    }
}

impl CallView {
    /// The card without what the asking side read on disk (`on_disk` and the whole old file
    /// it marks, `through_link`): the call alone, as it is shown when nothing is read. `None`
    /// when the card holds nothing read on disk.
    pub fn without_on_disk(&self) -> Option<CallView> {
        let CallView::Diff(d) = self else {
            return None;
        };
        if d.diffs
            .iter()
            .all(|f| f.on_disk.is_none() && f.through_link.is_none())
        {
            return None;
        }
        let diffs = d
            .diffs
            .iter()
            .map(|f| FileDiff {
                path: f.path.clone(),
                old_text: match f.on_disk {
                    Some(OnDisk::Whole) => None,
                    _ => f.old_text.clone(),
                },
                new_text: f.new_text.clone(),
                replace_all: f.replace_all,
                on_disk: None,
                through_link: None,
            })
            .collect();
        Some(CallView::Diff(DiffCall { diffs, ..d.clone() }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn card(on_disk: Value) -> serde_json::Result<CallView> {
        serde_json::from_value(json!({"card": "diff", "title": "Write", "diffs": [
            {"path": "a.txt", "old_text": "old\n", "new_text": "new\n", "on_disk": on_disk}]}))
    }

    #[test]
    fn each_state_round_trips_and_unknowns_are_refused() {
        for state in [
            json!({"state": "whole"}),
            json!({"state": "at", "line": 3, "before": "a\n", "after": "\nb"}),
            json!({"state": "unreadable", "reason": "permission denied"}),
        ] {
            let view = card(state.clone()).unwrap();
            assert_eq!(
                serde_json::to_value(&view).unwrap()["diffs"][0]["on_disk"],
                state
            );
            view.validate("call").unwrap();
        }
        for bad in [
            json!({"state": "whole", "extra": 1}),
            json!({"state": "at", "line": 3, "before": ""}),
            json!({"state": "moved"}),
            json!("whole"),
        ] {
            assert!(card(bad.clone()).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_excerpt_or_a_whole_file_needs_its_old_text() {
        let view: CallView = serde_json::from_value(json!({"card": "diff", "title": "W",
            "diffs": [{"path": "a", "old_text": null, "new_text": "x",
                       "on_disk": {"state": "whole"}}]}))
        .unwrap();
        assert_eq!(
            view.validate("call").unwrap_err().field,
            "call.diffs[0].on_disk"
        );
        let zero = card(json!({"state": "at", "line": 0, "before": "", "after": ""})).unwrap();
        assert_eq!(
            zero.validate("call").unwrap_err().field,
            "call.diffs[0].on_disk.line"
        );
    }

    #[test]
    fn without_what_was_read_a_whole_file_write_is_the_call_alone() {
        let whole = card(json!({"state": "whole"})).unwrap();
        let alone = whole.without_on_disk().unwrap();
        let CallView::Diff(d) = &alone else {
            panic!("a diff")
        };
        assert_eq!(
            (d.diffs[0].old_text.as_deref(), &d.diffs[0].on_disk),
            (None, &None)
        );
        let at = card(json!({"state": "at", "line": 9, "before": "x", "after": "y"})).unwrap();
        let CallView::Diff(d) = at.without_on_disk().unwrap() else {
            panic!("a diff")
        };
        assert_eq!(d.diffs[0].old_text.as_deref(), Some("old\n"));
        assert_eq!(alone.without_on_disk(), None);
    }

    #[test]
    fn a_link_on_the_way_round_trips_is_checked_and_is_left_out_with_what_was_read() {
        let linked = |link: Value| {
            serde_json::from_value::<CallView>(json!({"card": "diff", "title": "Write",
                "diffs": [{"path": "/p/notes/new.json", "old_text": null, "new_text": "{}",
                           "through_link": link}]}))
        };
        let link = json!({"link": "/p/notes", "target": "/home/u/.claude"});
        let view = linked(link.clone()).unwrap();
        assert_eq!(
            serde_json::to_value(&view).unwrap()["diffs"][0]["through_link"],
            link
        );
        view.validate("call").unwrap();
        // A new file through a link: nothing read, and still the link left out.
        let CallView::Diff(d) = view.without_on_disk().unwrap() else {
            panic!("a diff")
        };
        assert_eq!(d.diffs[0].through_link, None);
        linked(json!({"link": "/p/notes", "target": null}))
            .unwrap()
            .validate("call")
            .unwrap();
        for bad in [
            json!({"link": "/p/notes"}),
            json!({"link": "/p/notes", "target": "/x", "extra": 1}),
        ] {
            assert!(linked(bad.clone()).is_err(), "{bad}");
        }
        let empty = linked(json!({"link": "", "target": "/x"})).unwrap();
        assert_eq!(
            empty.validate("call").unwrap_err().field,
            "call.diffs[0].through_link.link"
        );
        let long = linked(json!({"link": "/p", "target": "x".repeat(MAX_PATH_BYTES + 1)})).unwrap();
        assert_eq!(
            long.validate("call").unwrap_err().field,
            "call.diffs[0].through_link.target"
        );
    }
}
