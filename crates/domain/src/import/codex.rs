//! Codex's `.rules` files (`~/.codex/rules/*.rules`, a trusted project's `.codex/rules/`):
//! Starlark calls of `prefix_rule(pattern = [...], decision = "allow" | "prompt" |
//! "forbidden", justification, match, not_match)`, where each pattern position is a word or a
//! list of alternative words, and the strictest decision of every rule that matches wins
//! (developers.openai.com/codex/rules; `openai/codex` `codex-rs/execpolicy/README.md` and
//! `src/parser.rs`). A pattern is an exact prefix of the command's words.
//!
//! The file is read as data, never run: only calls of `prefix_rule`, `host_executable` and
//! `network_rule` whose arguments are strings, lists of strings and `None` are understood;
//! anything else (a loop, a variable, `load`) is an error naming its line. A small reader of
//! that literal subset, written here: the Starlark crates evaluate the language whole, which
//! is exactly what a rules file must not be.

use super::{
    Command, Format, ImportError, Outcome, Placing, Proposed, Said, Source, shell_outcome,
};

/// The functions of Codex's rules (`codex-rs/execpolicy/src/parser.rs`, `policy_builtins`).
const FUNCTIONS: &[&str] = &["prefix_rule", "host_executable", "network_rule"];

/// A value in a rules file: a string, a list, or `None`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Value {
    Str(String),
    List(Vec<Value>),
    None,
}

/// One call of the file: its function, its keyword arguments, the line it starts on, and its
/// text.
struct Call {
    function: String,
    args: Vec<(String, Value)>,
    line: u32,
    text: String,
}

struct Reader<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Reader<'a> {
    fn line(&self) -> u32 {
        u32::try_from(self.text[..self.at].matches('\n').count() + 1).unwrap_or(u32::MAX)
    }

    /// Skips spaces, newlines and `#` comments.
    fn skip(&mut self) {
        loop {
            let rest = &self.text[self.at..];
            let trimmed = rest.trim_start();
            self.at += rest.len() - trimmed.len();
            if trimmed.starts_with('#') {
                self.at += trimmed.find('\n').unwrap_or(trimmed.len());
            } else {
                return;
            }
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip();
        if self.peek() == Some(c) {
            self.at += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn name(&mut self) -> Option<String> {
        self.skip();
        let rest = &self.text[self.at..];
        let n = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if n == 0 || rest.as_bytes()[0].is_ascii_digit() {
            return None;
        }
        self.at += n;
        Some(rest[..n].to_owned())
    }

    fn string(&mut self) -> Result<String, String> {
        let quote = self.peek().ok_or("a string ends the file")?;
        let triple: String = std::iter::repeat_n(quote, 3).collect();
        let long = self.text[self.at..].starts_with(&triple);
        self.at += if long { 3 } else { 1 };
        let mut out = String::new();
        loop {
            let rest = &self.text[self.at..];
            if long && rest.starts_with(&triple) {
                self.at += 3;
                return Ok(out);
            }
            let mut chars = rest.chars();
            let c = chars.next().ok_or("a string is not closed")?;
            self.at += c.len_utf8();
            match c {
                c if c == quote && !long => return Ok(out),
                '\n' if !long => return Err("a string is not closed on its line".into()),
                '\\' => {
                    let e = chars.next().ok_or("a string is not closed")?;
                    self.at += e.len_utf8();
                    out.push(match e {
                        'n' => '\n',
                        't' => '\t',
                        'r' => '\r',
                        '0' => '\0',
                        '\\' | '\'' | '"' => e,
                        '\n' => continue,
                        other => {
                            return Err(format!("an escape `\\{other}` Countersign does not read"));
                        }
                    });
                }
                c => out.push(c),
            }
        }
    }

    fn value(&mut self, depth: u32) -> Result<Value, String> {
        if depth > 8 {
            return Err("lists nested too deep".into());
        }
        self.skip();
        match self.peek() {
            Some('"' | '\'') => Ok(Value::Str(self.string()?)),
            Some('[') => {
                self.at += 1;
                let mut items = Vec::new();
                loop {
                    if self.eat(']') {
                        return Ok(Value::List(items));
                    }
                    items.push(self.value(depth + 1)?);
                    if !self.eat(',') {
                        if self.eat(']') {
                            return Ok(Value::List(items));
                        }
                        return Err("a list's items are separated by commas".into());
                    }
                }
            }
            _ => match self.name().as_deref() {
                Some("None") => Ok(Value::None),
                Some(other) => Err(format!(
                    "`{other}` is code, and a rules file is read as data here (strings, lists, \
                     None)"
                )),
                None => Err("a value Countersign does not read (strings, lists, None)".into()),
            },
        }
    }

    fn call(&mut self) -> Result<Option<Call>, String> {
        self.skip();
        if self.at >= self.text.len() {
            return Ok(None);
        }
        let line = self.line();
        let function = self
            .name()
            .ok_or("expected a call such as prefix_rule(...)")?;
        if !self.eat('(') {
            return Err(format!(
                "`{function}` is not called: a rules file here holds calls only"
            ));
        }
        if !FUNCTIONS.contains(&function.as_str()) {
            return Err(format!(
                "`{function}` is not a function of Codex's rules ({})",
                FUNCTIONS.join(", ")
            ));
        }
        let mut args = Vec::new();
        loop {
            if self.eat(')') {
                break;
            }
            let key = self
                .name()
                .ok_or("arguments are given by name (pattern = [...])")?;
            if !self.eat('=') {
                return Err(format!("`{key}` is given without `=`"));
            }
            let value = self.value(0)?;
            args.push((key, value));
            if !self.eat(',') {
                if self.eat(')') {
                    break;
                }
                return Err("arguments are separated by commas".into());
            }
        }
        // The call as one line, without its comments: what the person reads beside the rule.
        let text = format!(
            "{function}({})",
            args.iter()
                .map(|(k, v)| format!("{k} = {}", render(v)))
                .collect::<Vec<_>>()
                .join(", ")
        );
        Ok(Some(Call {
            function,
            args,
            line,
            text,
        }))
    }
}

/// A value written back as Starlark reads it.
fn render(v: &Value) -> String {
    match v {
        Value::Str(s) => serde_json::to_string(s).unwrap_or_default(),
        Value::List(items) => format!(
            "[{}]",
            items.iter().map(render).collect::<Vec<_>>().join(", ")
        ),
        Value::None => "None".into(),
    }
}

/// A prefix rule, read.
struct Rule {
    /// Each position's alternatives.
    pattern: Vec<Vec<String>>,
    said: Said,
    justification: Option<String>,
}

fn strings(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::Str(s) => Some(vec![s.clone()]),
        Value::List(items) => items
            .iter()
            .map(|i| match i {
                Value::Str(s) => Some(s.clone()),
                _ => None,
            })
            .collect(),
        Value::None => None,
    }
}

fn rule(call: &Call) -> Result<Rule, String> {
    let mut pattern = None;
    let mut said = Said::Allow;
    let mut justification = None;
    for (key, value) in &call.args {
        match key.as_str() {
            "pattern" => {
                let Value::List(items) = value else {
                    return Err("`pattern` is a list".into());
                };
                let positions: Option<Vec<Vec<String>>> = items.iter().map(strings).collect();
                match positions {
                    Some(p) if !p.is_empty() && p.iter().all(|alts| !alts.is_empty()) => {
                        pattern = Some(p);
                    }
                    _ => {
                        return Err(
                            "`pattern` is a non-empty list of words or lists of words".into()
                        );
                    }
                }
            }
            "decision" => {
                said = match value {
                    Value::Str(d) if d == "allow" => Said::Allow,
                    Value::Str(d) if d == "prompt" => Said::Ask,
                    Value::Str(d) if d == "forbidden" => Said::Deny,
                    Value::None => Said::Allow,
                    _ => return Err("`decision` is \"allow\", \"prompt\" or \"forbidden\"".into()),
                };
            }
            "justification" => {
                justification = match value {
                    Value::Str(j) if j.trim().is_empty() => {
                        return Err("`justification` cannot be empty".into());
                    }
                    Value::Str(j) => Some(j.clone()),
                    Value::None => None,
                    Value::List(_) => return Err("`justification` is a string".into()),
                };
            }
            "match" | "not_match" => {}
            other => return Err(format!("prefix_rule takes no `{other}`")),
        }
    }
    Ok(Rule {
        pattern: pattern.ok_or("a prefix_rule needs its `pattern`")?,
        said,
        justification,
    })
}

/// The most command prefixes one rule's alternatives may stand for.
const MAX_EXPANDED: usize = 16;

/// Every command a pattern's alternatives spell, as a line of words; `None` when there are
/// too many.
fn expanded(pattern: &[Vec<String>]) -> Option<Vec<Vec<String>>> {
    let mut all: Vec<Vec<String>> = vec![Vec::new()];
    for alts in pattern {
        let mut next = Vec::new();
        for prefix in &all {
            for alt in alts {
                let mut p = prefix.clone();
                p.push(alt.clone());
                next.push(p);
            }
        }
        if next.len() > MAX_EXPANDED {
            return None;
        }
        all = next;
    }
    Some(all)
}

/// A word as a shell would need it written, so the words of a prefix are read back alike.
fn quoted(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c))
    {
        w.to_owned()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

pub(super) fn read(
    file: &str,
    text: &str,
    placing: &Placing,
) -> Result<Vec<Proposed>, ImportError> {
    let mut reader = Reader { text, at: 0 };
    let mut calls = Vec::new();
    loop {
        let line = {
            reader.skip();
            reader.line()
        };
        match reader.call() {
            Ok(Some(c)) => {
                calls.push(c);
                super::count_rules(file, calls.len())?;
            }
            Ok(None) => break,
            Err(why) => {
                return Err(ImportError {
                    file: file.to_owned(),
                    line: Some(line),
                    why,
                });
            }
        }
    }
    let mut rules: Vec<(&Call, Option<Rule>)> = Vec::new();
    for c in &calls {
        match c.function.as_str() {
            "prefix_rule" => {
                let r = rule(c).map_err(|why| ImportError {
                    file: file.to_owned(),
                    line: Some(c.line),
                    why,
                })?;
                rules.push((c, Some(r)));
            }
            "host_executable" | "network_rule" => rules.push((c, None)),
            _ => rules.push((c, None)),
        }
    }
    let project = placing.project.as_deref();
    let source = |c: &Call| Source {
        format: Format::Codex,
        file: file.to_owned(),
        line: c.line,
        text: c.text.clone(),
        digest: None,
    };
    let mut proposed = Vec::new();
    for (c, r) in &rules {
        let Some(r) = r else {
            let why = if c.function == "network_rule" {
                "Countersign has no rules about network hosts; Codex still applies it"
            } else {
                "it says where a program lives, which Countersign reads no rule from; Codex \
                 still applies it"
            };
            proposed.push(Proposed {
                source: source(c),
                said: Said::Other,
                outcome: Outcome::Left { why: why.into() },
                examples: Vec::new(),
            });
            continue;
        };
        let outcome = match expanded(&r.pattern) {
            None => Outcome::Refused {
                why: format!(
                    "its alternatives spell more than {MAX_EXPANDED} commands: write them as \
                     rules of their own"
                ),
            },
            Some(lines) => {
                // The strictest decision of every rule that matches wins in Codex: an allow
                // that a prompt (or a forbidden Countersign does not bring along) shares a
                // program with would reach further alone.
                let carved = r.said == Said::Allow
                    && rules.iter().any(|(_, other)| {
                        other.as_ref().is_some_and(|o| {
                            o.said != Said::Allow
                                && o.pattern[0].iter().any(|w| r.pattern[0].contains(w))
                                && (o.said == Said::Ask || expanded(&o.pattern).is_none())
                        })
                    });
                let mut kept = Vec::new();
                let mut outcome = None;
                for words in &lines {
                    let line: Vec<String> = words.iter().map(|w| quoted(w)).collect();
                    match shell_outcome(
                        &["codex.Bash"],
                        r.said,
                        &Command::Prefix(line.join(" ")),
                        project,
                        r.justification.as_deref(),
                    ) {
                        Outcome::Kept { rules } => kept.extend(rules),
                        other => {
                            outcome = Some(other);
                            break;
                        }
                    }
                }
                match outcome {
                    Some(o) => o,
                    None if carved => Outcome::Refused {
                        why: "a prompt rule about the same program takes calls out of it in \
                              Codex (the strictest rule wins), which Countersign would not \
                              bring along: imported alone it would reach further"
                            .into(),
                    },
                    None => Outcome::Kept { rules: kept },
                }
            }
        };
        proposed.push(Proposed {
            source: source(c),
            said: r.said,
            outcome,
            examples: Vec::new(),
        });
    }
    Ok(proposed)
}
