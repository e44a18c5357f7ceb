//! A JSON body extractor whose errors name the field that broke, as `{code, message}`.

use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;

use crate::error::{ApiError, ErrorCode};

/// Largest request body accepted, in bytes.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;
/// Largest approval submission, in bytes: a diff of a large file can be asked about.
pub const MAX_SUBMISSION_BYTES: usize = 8 * 1024 * 1024;

/// A JSON request body of type `T`, at most `MAX` bytes ([`MAX_BODY_BYTES`] unless a route
/// says otherwise).
pub struct JsonBody<T, const MAX: usize = MAX_BODY_BYTES>(pub T);

fn too_large(max: usize) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::PayloadTooLarge,
        format!("request body is larger than {max} bytes"),
    )
}

impl<S: Send + Sync, T: DeserializeOwned, const MAX: usize> FromRequest<S> for JsonBody<T, MAX> {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, ApiError> {
        let declared = req
            .headers()
            .get(axum::http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > MAX as u64) {
            // Read (and drop) what a client sends a little past the limit, so it finishes
            // sending and reads this answer instead of seeing the connection reset.
            // Frame by frame, keeping nothing, for a few seconds at most.
            if declared.is_some_and(|n| n <= 2 * MAX as u64) {
                use http_body_util::BodyExt as _;
                let mut body = req.into_body();
                let drain = async { while let Some(Ok(_)) = body.frame().await {} };
                let _ = tokio::time::timeout(std::time::Duration::from_secs(5), drain).await;
            }
            return Err(too_large(MAX));
        }
        let bytes = axum::body::to_bytes(req.into_body(), MAX)
            .await
            .map_err(|_| too_large(MAX))?;
        parse(&bytes).map(JsonBody)
    }
}

/// Parses JSON, telling a syntax error (`invalid_json`) from a shape error
/// (`invalid_request`, naming the field by its path). An object that names a key twice is
/// refused: parsers disagree on which one wins, so the person could see one value and the
/// agent run the other.
pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let malformed = |e: serde_json::Error| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidJson,
            format!("malformed JSON: {e}"),
        )
    };
    if let Err(e) = serde_json::from_slice::<Unique>(bytes) {
        if e.classify() == serde_json::error::Category::Data {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::InvalidRequest,
                strip_position(&e.to_string()),
            ));
        }
        return Err(malformed(e));
    }
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(malformed)?;
    from_value(value)
}

/// A JSON document in which no object names a key twice.
struct Unique;

impl<'de> serde::Deserialize<'de> for Unique {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UniqueVisitor)
    }
}

struct UniqueVisitor;

impl<'de> serde::de::Visitor<'de> for UniqueVisitor {
    type Value = Unique;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_str<E>(self, _: &str) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_unit<E>(self) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Unique, A::Error> {
        while seq.next_element::<Unique>()?.is_some() {}
        Ok(Unique)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Unique, A::Error> {
        let mut seen = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if seen.contains(&key) {
                return Err(serde::de::Error::custom(format!(
                    "the key {key:?} appears twice in one object"
                )));
            }
            map.next_value::<Unique>()?;
            seen.insert(key);
        }
        Ok(Unique)
    }
}

/// A JSON value into `T`, naming the field that does not fit (`invalid_request`).
pub fn from_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, ApiError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let msg = strip_position(&e.into_inner().to_string());
        let message = if path == "." {
            msg
        } else {
            format!("{path}: {msg}")
        };
        ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::InvalidRequest, message)
    })
}

/// serde_json appends " at line L column C"; the field path says more.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_owned(),
        None => msg.to_owned(),
    }
}
