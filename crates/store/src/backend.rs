//! A connection to either database the store runs on, and the one place their SQL differs in
//! how it is written: SQLite's `?` and `?N` placeholders are PostgreSQL's `$n`. A query is
//! written once, in SQLite's spelling of what both accept, and run on either.

use std::borrow::Cow;

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

impl<'a> From<&'a mut crate::WriteTx> for Conn<'a> {
    fn from(c: &'a mut crate::WriteTx) -> Self {
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
    /// `text` as this connection's database writes it.
    pub fn sql<'t>(&self, text: &'t str) -> Cow<'t, str> {
        match self {
            Conn::Sqlite(_) => Cow::Borrowed(text),
            Conn::Postgres(_) => Cow::Owned(numbered(text)),
        }
    }
}

/// SQLite's placeholders as PostgreSQL's: `?` is the next `$n`, `?N` is `$N`; nothing inside a
/// quoted string or name changes.
pub fn numbered(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut next = 0u32;
    let mut quote: Option<char> = None;
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
#[derive(Debug, Clone, Copy)]
pub(crate) enum Value<'a> {
    Int(i64),
    Text(&'a str),
    OptText(Option<&'a str>),
    OptBool(Option<bool>),
    Bytes(&'a [u8]),
}

/// Runs a statement that changes rows, with `values` bound in order; how many rows it changed.
pub(crate) async fn execute(
    conn: Conn<'_>,
    text: &str,
    values: &[Value<'_>],
) -> Result<u64, crate::StoreError> {
    let sql = conn.sql(text);
    Ok(crate::on!(conn, |c| {
        let mut q = sqlx::query(&sql);
        for v in values {
            q = match *v {
                Value::Int(i) => q.bind(i),
                Value::Text(t) => q.bind(t),
                Value::OptText(t) => q.bind(t),
                Value::OptBool(b) => q.bind(b),
                Value::Bytes(b) => q.bind(b),
            };
        }
        q.execute(c).await.map(|d| d.rows_affected())
    })?)
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
}
