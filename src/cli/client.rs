//! A small client for the local API, finding the console through the data directory.

use std::time::Duration;

use reqwest::StatusCode;

use crate::data_dir::{DataDir, DataDirError};
use crate::token::{Token, TokenError, TokenStore};

/// The variable that gives a client the token directly.
pub const TOKEN_ENV: &str = "COUNTERSIGN_TOKEN";

/// Why a call to the console failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error(transparent)]
    DataDir(#[from] DataDirError),
    #[error(transparent)]
    Token(#[from] TokenError),
    #[error(
        "no console answers at {url} (connection.json is stale or the console stopped): {source}"
    )]
    Unreachable { url: String, source: reqwest::Error },
    #[error("the console refused the request ({status} {code}): {message}")]
    Api {
        status: StatusCode,
        code: String,
        message: String,
    },
    #[error("unexpected answer from the console: {0}")]
    Protocol(String),
}

/// A connection to the running console.
pub struct Client {
    base: String,
    token: Token,
    http: reqwest::Client,
}

impl Client {
    /// Reads `connection.json` and the token (`COUNTERSIGN_TOKEN`, else the keyring or file).
    pub fn connect(dir: &DataDir) -> Result<Self, ClientError> {
        let dir = dir.canonical();
        let conn = dir.connection()?;
        let token = match std::env::var(TOKEN_ENV)
            .ok()
            .and_then(|t| Token::from_text(&t))
        {
            Some(t) => t,
            None => TokenStore::new(dir.root()).load()?.0,
        };
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .build()
            .map_err(|e| ClientError::Protocol(e.to_string()))?;
        Ok(Self {
            base: conn.url,
            token,
            http,
        })
    }

    /// `GET` a path, answering the JSON body of a 2xx.
    pub async fn get(&self, path: &str) -> Result<serde_json::Value, ClientError> {
        self.send(self.http.get(format!("{}{path}", self.base)))
            .await
    }

    /// `GET` a path with query parameters.
    pub async fn get_query(
        &self,
        path: &str,
        query: &[(&str, &str)],
    ) -> Result<serde_json::Value, ClientError> {
        self.send(self.http.get(format!("{}{path}", self.base)).query(query))
            .await
    }

    /// `POST` JSON to a path, answering the JSON body of a 2xx.
    pub async fn post(
        &self,
        path: &str,
        body: &serde_json::Value,
    ) -> Result<serde_json::Value, ClientError> {
        self.send(self.http.post(format!("{}{path}", self.base)).json(body))
            .await
    }

    async fn send(&self, req: reqwest::RequestBuilder) -> Result<serde_json::Value, ClientError> {
        let resp = req
            .bearer_auth(self.token.expose())
            .send()
            .await
            .map_err(|source| ClientError::Unreachable {
                url: self.base.clone(),
                source,
            })?;
        let status = resp.status();
        let body: serde_json::Value = resp
            .json()
            .await
            .map_err(|e| ClientError::Protocol(format!("{status}: {e}")))?;
        if status.is_success() {
            return Ok(body);
        }
        let field = |k: &str| body["error"][k].as_str().unwrap_or("unknown").to_owned();
        Err(ClientError::Api {
            status,
            code: field("code"),
            message: field("message"),
        })
    }
}
