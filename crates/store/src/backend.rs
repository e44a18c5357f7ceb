//! A connection to either database the store runs on, and the one place their SQL differs in
//! how it is written. A query is written once, in SQLite's spelling of what both accept, and
//! run on either; for PostgreSQL [`numbered`] changes the two things that differ:
//! - SQLite's `?` and `?N` placeholders are PostgreSQL's `$n`;
//! - `json_each(?)` (each element of a JSON array bound as text, as `value`) is
//!   `jsonb_array_elements(CAST($n AS jsonb))`, whose column is also `value`.
//!
//! Where both accept one spelling the queries use it: `coalesce` (not `ifnull`), `IS NOT
//! DISTINCT FROM` (not `IS ?`), `CAST(x AS BIGINT)` for numbers read out of JSON with `->>`
//! (text on PostgreSQL), arrays of rows read with `value ->> n`.

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;

use sqlx::pool::PoolConnection;
use sqlx::{PgConnection, Sqlite, SqliteConnection};

/// A connection to SQLite or PostgreSQL, borrowed for one store call.
pub enum Conn<'a> {
    Sqlite(&'a mut SqliteConnection),
    Postgres(&'a mut PgConnection),
}

impl<'a> From<&'a mut SqliteConnection> for Conn<'a> {
    fn from(c: &'a mut SqliteConnection) -> Self {
        Conn::Sqlite(c)
    }
}

impl<'a> From<&'a mut PoolConnection<Sqlite>> for Conn<'a> {
    fn from(c: &'a mut PoolConnection<Sqlite>) -> Self {
        Conn::Sqlite(c)
    }
}

impl<'a> From<&'a mut sqlx::Transaction<'_, Sqlite>> for Conn<'a> {
    fn from(c: &'a mut sqlx::Transaction<'_, Sqlite>) -> Self {
        Conn::Sqlite(c)
    }
}

impl<'a> From<&'a mut PgConnection> for Conn<'a> {
    fn from(c: &'a mut PgConnection) -> Self {
        Conn::Postgres(c)
    }
}

impl<'a> From<&'a mut PoolConnection<sqlx::Postgres>> for Conn<'a> {
    fn from(c: &'a mut PoolConnection<sqlx::Postgres>) -> Self {
        Conn::Postgres(c)
    }
}

impl<'a> From<&'a mut sqlx::Transaction<'_, sqlx::Postgres>> for Conn<'a> {
    fn from(c: &'a mut sqlx::Transaction<'_, sqlx::Postgres>) -> Self {
        Conn::Postgres(c)
    }
}

impl Conn<'_> {
    /// The same connection for one more call, this one kept for the calls after it.
    pub fn reborrow(&mut self) -> Conn<'_> {
        match self {
            Conn::Sqlite(c) => Conn::Sqlite(c),
            Conn::Postgres(c) => Conn::Postgres(c),
        }
    }

    /// `text` as this connection's database writes it.
    pub fn sql<'t>(&self, text: &'t str) -> Cow<'t, str> {
        match self {
            Conn::Sqlite(_) => Cow::Borrowed(text),
            Conn::Postgres(_) => Cow::Owned(numbered(text)),
        }
    }
}

/// SQLite's spelling as PostgreSQL's: `?` is the next `$n`, `?N` is `$N`, and `json_each(` is
/// `jsonb_array_elements(CAST(` closed by ` AS jsonb))`; nothing inside a quoted string or name
/// changes.
pub fn numbered(text: &str) -> String {
    const EACH: &str = "json_each(";
    let mut out = String::with_capacity(text.len() + 8);
    let mut next = 0u32;
    let mut quote: Option<char> = None;
    // The depth of parentheses inside each `json_each(` not yet closed.
    let mut each: Vec<u32> = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), _) if c == q => {
                quote = None;
                out.push(c);
            }
            (Some(_), _) => out.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                out.push(c);
            }
            (None, '(') => {
                let word_start = out.len().checked_sub(EACH.len() - 1);
                let is_each = word_start.is_some_and(|at| {
                    out[at..] == EACH[..EACH.len() - 1]
                        && !out[..at]
                            .chars()
                            .next_back()
                            .is_some_and(|p| p.is_alphanumeric() || p == '_')
                });
                if let (true, Some(at)) = (is_each, word_start) {
                    out.truncate(at);
                    out.push_str("jsonb_array_elements(CAST(");
                    each.push(0);
                } else {
                    if let Some(depth) = each.last_mut() {
                        *depth += 1;
                    }
                    out.push(c);
                }
            }
            (None, ')') => match each.last_mut() {
                Some(0) => {
                    each.pop();
                    out.push_str(" AS jsonb))");
                }
                Some(depth) => {
                    *depth -= 1;
                    out.push(c);
                }
                None => out.push(c),
            },
            (None, '?') => {
                let mut digits = String::new();
                while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
                    digits.push(d);
                    chars.next();
                }
                if digits.is_empty() {
                    next += 1;
                    out.push_str(&format!("${next}"));
                } else {
                    out.push('$');
                    out.push_str(&digits);
                }
            }
            (None, _) => out.push(c),
        }
    }
    out
}

/// A value bound to a statement run on either database.
#[derive(Debug, Clone)]
pub enum Value<'a> {
    Int(i64),
    OptInt(Option<i64>),
    Bool(bool),
    Text(&'a str),
    Owned(String),
    OptText(Option<&'a str>),
    OptBool(Option<bool>),
    Bytes(&'a [u8]),
    OwnedBytes(Vec<u8>),
}

/// A future of the store's, boxed: its type then names no connection's lifetime, which keeps
/// the futures that await it `Send` for `tokio::spawn` (rustc cannot yet prove that of
/// sqlx's executors behind a borrowed connection of either database).
pub type Boxed<'a, T> = Pin<Box<dyn Future<Output = Result<T, crate::StoreError>> + Send + 'a>>;

/// Runs a statement that changes rows, with `values` bound in order; how many rows it changed.
pub(crate) fn execute<'a>(
    conn: Conn<'a>,
    text: &'a str,
    values: &'a [Value<'a>],
) -> Boxed<'a, u64> {
    Box::pin(async move {
        let sql = conn.sql(text);
        Ok(crate::on!(conn, |c| {
            crate::bind_values!(sqlx::query(&sql), values)
                .execute(c)
                .await
                .map(|d| d.rows_affected())
        })?)
    })
}

/// Defines a function that runs a query on either database, with `values` bound in order,
/// and reads its rows as `T` the way sqlx's method of the same name does.
macro_rules! fetcher {
    ($(#[$doc:meta])* $name:ident -> $out:ty) => {
        $(#[$doc])*
        pub(crate) fn $name<'a, T>(
            conn: Conn<'a>,
            text: &'a str,
            values: &'a [Value<'a>],
        ) -> Boxed<'a, $out>
        where
            T: for<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow>
                + for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow>
                + Send
                + Unpin
                + 'a,
        {
            Box::pin(async move {
                let sql = conn.sql(text);
                Ok(crate::on!(conn, |c| {
                    crate::bind_values!(sqlx::query_as::<_, T>(&sql), values)
                        .$name(c)
                        .await
                })?)
            })
        }
    };
}

fetcher!(
    /// The rows a query gives.
    fetch_all -> Vec<T>
);
fetcher!(
    /// The first row a query gives, if any.
    fetch_optional -> Option<T>
);
fetcher!(
    /// The one row a query gives (an aggregate's).
    fetch_one -> T
);

/// Binds `values` to a query of either database, in order.
#[macro_export]
macro_rules! bind_values {
    ($q:expr, $values:expr) => {{
        let mut q = $q;
        for v in $values {
            q = match v {
                $crate::backend::Value::Int(i) => q.bind(*i),
                $crate::backend::Value::OptInt(i) => q.bind(*i),
                $crate::backend::Value::Bool(b) => q.bind(*b),
                $crate::backend::Value::Text(t) => q.bind(*t),
                $crate::backend::Value::Owned(t) => q.bind(t.as_str()),
                $crate::backend::Value::OptText(t) => q.bind(*t),
                $crate::backend::Value::OptBool(b) => q.bind(*b),
                $crate::backend::Value::Bytes(b) => q.bind(*b),
                $crate::backend::Value::OwnedBytes(b) => q.bind(b.as_slice()),
            };
        }
        q
    }};
}

/// Statements run together in one transaction: on SQLite in one call to its thread (so each
/// uses `?` placeholders only, numbered across the whole text), on PostgreSQL one after
/// another on the same connection (each numbered from `$1`). A statement that fails stops the
/// rest.
#[derive(Debug, Default)]
pub struct Script<'a> {
    lead: &'static str,
    statements: Vec<(String, Vec<Value<'a>>)>,
}

impl<'a> Script<'a> {
    /// A script run after `lead`, statements without values (see [`crate::WriteTx::lead`]).
    pub fn after(lead: &'static str) -> Self {
        Script {
            lead,
            statements: Vec::new(),
        }
    }

    /// Puts `lead` before the script's statements, after what it had there.
    pub fn lead_with(&mut self, lead: &'static str) {
        if self.lead.is_empty() {
            self.lead = lead;
        } else if !lead.is_empty() {
            // Only one lead exists (`BEGIN IMMEDIATE; `), and a transaction begins once.
            debug_assert_eq!(self.lead, lead);
        }
    }

    /// Adds a statement (without its `;`) and its values.
    pub fn push(&mut self, text: impl Into<String>, values: Vec<Value<'a>>) {
        self.statements.push((text.into(), values));
    }

    /// Whether it holds no statement.
    pub fn is_empty(&self) -> bool {
        self.statements.is_empty()
    }

    /// Runs the statements in order.
    pub fn run<'c>(self, conn: Conn<'c>) -> Boxed<'c, ()>
    where
        'a: 'c,
    {
        Box::pin(self.run_now(conn))
    }

    async fn run_now(self, mut conn: Conn<'_>) -> Result<(), crate::StoreError> {
        if !self.lead.is_empty() && matches!(conn, Conn::Postgres(_)) {
            execute(conn.reborrow(), self.lead, &[]).await?;
        }
        if let Conn::Sqlite(_) = conn {
            if self.statements.is_empty() && self.lead.is_empty() {
                return Ok(());
            }
            let mut text = String::from(self.lead);
            for (s, _) in &self.statements {
                text.push_str(s);
                text.push_str("; ");
            }
            let values: Vec<Value<'_>> = self.statements.into_iter().flat_map(|(_, v)| v).collect();
            execute(conn, &text, &values).await?;
            return Ok(());
        }
        for (s, values) in &self.statements {
            execute(conn.reborrow(), s, values).await?;
        }
        Ok(())
    }
}

/// Runs `$body` with `$c` bound to the connection's own type, once per database: the same
/// tokens, compiled for each.
#[macro_export]
macro_rules! on {
    ($conn:expr, |$c:ident| $body:expr) => {
        match $conn {
            $crate::backend::Conn::Sqlite($c) => $body,
            $crate::backend::Conn::Postgres($c) => $body,
        }
    };
}

#[cfg(test)]
mod tests {
    use super::numbered;

    #[test]
    fn placeholders_become_numbered_outside_strings() {
        assert_eq!(
            numbered("UPDATE t SET a = ?, b = '?' WHERE c = ? AND \"d?\" = ?"),
            "UPDATE t SET a = $1, b = '?' WHERE c = $2 AND \"d?\" = $3"
        );
        assert_eq!(
            numbered("SET x = ?1, y = CASE WHEN z IS DISTINCT FROM ?2 THEN ?1 END WHERE id = ?3"),
            "SET x = $1, y = CASE WHEN z IS DISTINCT FROM $2 THEN $1 END WHERE id = $3"
        );
        assert_eq!(numbered("it''s ? 'a''?b' ?"), "it''s $1 'a''?b' $2");
    }

    #[test]
    fn json_each_becomes_jsonb_array_elements() {
        assert_eq!(
            numbered(
                "SELECT k.value ->> 0 FROM json_each(?1) k JOIN t ON (t.a = coalesce(k.b, 'json_each(x)'))"
            ),
            "SELECT k.value ->> 0 FROM jsonb_array_elements(CAST($1 AS jsonb)) k JOIN t ON (t.a = coalesce(k.b, 'json_each(x)'))"
        );
        assert_eq!(
            numbered("WHERE id IN (SELECT value FROM json_each(?)) AND b = ?"),
            "WHERE id IN (SELECT value FROM jsonb_array_elements(CAST($1 AS jsonb))) AND b = $2"
        );
        // Only the function of that name: not a longer name ending so.
        assert_eq!(numbered("my_json_each(?)"), "my_json_each($1)");
    }
}
