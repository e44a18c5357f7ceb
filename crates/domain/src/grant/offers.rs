//! What the "don't ask again" chooser can offer for a call, and what a prefix it offers covers.

use serde::Serialize;
use ts_rs::TS;

use super::{Scope, default_scope};
use crate::approval::Approval;
use crate::call::CallView;
use crate::shell::{not_caught, prefix_reach, segments};

/// What the "don't ask again" chooser can offer for a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct Offers {
    /// The narrowest sensible scope, preselected.
    pub default: Scope,
    /// The words every command of a terminal call starts with, to choose a prefix from
    /// (one word at least); `None` when no prefix can be offered.
    pub words: Option<Vec<String>>,
    /// Why no command prefix is offered for a terminal call, in a sentence.
    pub no_prefix: Option<String>,
    /// What a prefix of `words` covers, in words for the chooser: "these words, then only
    /// options known to be harmless (…) and paths inside the project…", from the table of
    /// harmless arguments, or "exactly these words" for a program it does not know.
    pub prefix_excludes: Option<String>,
    /// What a decline rule on `words` does not catch, in a sentence for the chooser.
    pub decline_misses: Option<String>,
    /// The directory every file of a diff call lies under, for a path prefix; `None` when a
    /// file is hidden, which no folder rule covers.
    pub dir: Option<String>,
    /// For a supported agent's shell or file tool: the agents a command or folder rule may
    /// serve "from any agent", in words; `None` when the rule can serve this tool only.
    pub any_agent: Option<String>,
}

/// The scopes the chooser offers for `a`.
pub fn offers(a: &Approval) -> Offers {
    let mut o = Offers {
        default: default_scope(a),
        words: None,
        no_prefix: None,
        prefix_excludes: None,
        decline_misses: None,
        dir: None,
        any_agent: None,
    };
    if a.artifact_id.is_none()
        && let Some(across) = super::any_agent_address(&a.tool)
    {
        o.any_agent = Some(super::served_agents(&across));
    }
    match &a.call {
        CallView::Terminal(t) if t.args.is_some() => {
            o.no_prefix = Some("its arguments are given apart from the command".into());
        }
        CallView::Terminal(t)
            if t.env.as_ref().is_some_and(|e| !e.is_empty())
                || t.options
                    .iter()
                    .flatten()
                    .any(|(name, value)| !super::plain_option(name, value)) =>
        {
            o.no_prefix =
                Some("it sets environment variables or flags: grant the exact call".into());
        }
        CallView::Terminal(t) => match segments(&t.command) {
            Ok(segs) => {
                let common = common_prefix(&segs);
                if common.is_empty() {
                    o.no_prefix = Some("its commands do not start with the same word".into());
                } else {
                    o.prefix_excludes = Some(prefix_reach(&common));
                    o.decline_misses = Some(not_caught(&common));
                    o.words = Some(common);
                }
            }
            Err(why) => o.no_prefix = Some(format!("this command line cannot be split: {why}")),
        },
        CallView::Diff(d) => {
            let dirs: Vec<&str> = d
                .diffs
                .iter()
                .map(|f| f.path.rsplit_once('/').map_or("", |(dir, _)| dir))
                .collect();
            if !d.diffs.iter().any(|f| crate::paths::is_hidden(&f.path)) {
                o.dir = common_dir(&dirs);
            }
        }
        // A question or a plan is answered each time: no rule is made from one.
        CallView::Generic(_) | CallView::Question(_) | CallView::Plan(_) => {}
    }
    o
}

/// The words every segment starts with.
fn common_prefix(segs: &[Vec<String>]) -> Vec<String> {
    let Some(first) = segs.first() else {
        return Vec::new();
    };
    let n = (0..first.len())
        .take_while(|&i| segs.iter().all(|s| s.get(i) == first.get(i)))
        .count();
    first[..n].to_vec()
}

/// The longest directory every one of `dirs` lies in (whole components), when there is one.
fn common_dir(dirs: &[&str]) -> Option<String> {
    let first = dirs.first()?;
    let mut common: Vec<&str> = first.split('/').collect();
    for d in &dirs[1..] {
        let parts: Vec<&str> = d.split('/').collect();
        let n = common
            .iter()
            .zip(&parts)
            .take_while(|(a, b)| a == b)
            .count();
        common.truncate(n);
    }
    let joined = common.join("/");
    (!joined.trim_end_matches('/').is_empty()).then_some(joined)
}
