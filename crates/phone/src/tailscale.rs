//! A certificate Tailscale issues for this machine's name on the tailnet (a public authority's,
//! through Let's Encrypt), so the phone's browser trusts the page without a warning, and no
//! machine in the middle can pass for it on the first visit.
//!
//! From Tailscale's own command line, as its documentation gives it:
//! - `tailscale status --json`: `CertDomains`, the names the tailnet can issue certificates
//!   for (empty when HTTPS certificates are off in the tailnet's settings);
//! - `tailscale cert --cert-file FILE --key-file FILE NAME`: the certificate (with its chain)
//!   and its key, as PEM, renewed by Tailscale when it nears its end.

use std::path::Path;
use std::time::Duration;

use serde::Deserialize;

use crate::PhoneError;
use crate::tls::Identity;

/// Where the certificate and key are written, in the data directory.
pub const CERT_FILE: &str = "phone-tailscale.crt";
pub const KEY_FILE: &str = "phone-tailscale.key";
/// How long Tailscale may take to answer (a new certificate takes an ACME exchange).
const STATUS_TIMEOUT: Duration = Duration::from_secs(10);
const CERT_TIMEOUT: Duration = Duration::from_secs(90);

#[derive(Deserialize)]
struct Status {
    #[serde(rename = "CertDomains", default)]
    cert_domains: Option<Vec<String>>,
}

async fn run(
    bin: &Path,
    args: &[&std::ffi::OsStr],
    limit: Duration,
) -> Result<Vec<u8>, PhoneError> {
    let failed = |m: String| PhoneError::Certificate(format!("Tailscale: {m}"));
    let mut command = tokio::process::Command::new(bin);
    command
        .args(args)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let out = tokio::time::timeout(limit, command.output())
        .await
        .map_err(|_| failed(format!("no answer in {} s", limit.as_secs())))?
        .map_err(|e| failed(format!("cannot run {}: {e}", bin.display())))?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr);
        let said: String = said.trim().chars().take(300).collect();
        return Err(failed(said));
    }
    Ok(out.stdout)
}

/// This machine's name on the tailnet and a certificate Tailscale issued for it, written 0600
/// in `root`: for `want` when given (a running page renewing its certificate keeps its name),
/// else for the first name Tailscale can certify. The certificate must be valid now for the name.
pub async fn certificate(
    bin: &Path,
    root: &Path,
    want: Option<&str>,
) -> Result<(String, Identity), PhoneError> {
    let status = run(bin, &["status".as_ref(), "--json".as_ref()], STATUS_TIMEOUT).await?;
    let status: Status = serde_json::from_slice(&status)
        .map_err(|e| PhoneError::Certificate(format!("Tailscale's status does not parse: {e}")))?;
    let names: Vec<String> = status
        .cert_domains
        .unwrap_or_default()
        .into_iter()
        .map(|n| n.trim_end_matches('.').to_ascii_lowercase())
        .collect();
    let first = names.first().cloned().ok_or_else(|| {
        PhoneError::Certificate(
            "Tailscale: HTTPS certificates are off for this tailnet (turn them on in its DNS \
             settings)"
                .into(),
        )
    })?;
    let name = match want {
        None => first,
        Some(want) if names.iter().any(|n| n == want) => want.to_owned(),
        // Asked for nothing under the new name: the running page cannot take it.
        Some(want) => {
            return Err(PhoneError::TailnetName {
                was: want.to_owned(),
                now: first,
            });
        }
    };
    // Only a tailnet's own name: a `tailscale` that names another domain is not believed.
    if !crate::is_host_name(&name) || !name.ends_with(".ts.net") || name.len() <= ".ts.net".len() {
        return Err(PhoneError::Host(name));
    }
    let (cert, key) = (root.join(CERT_FILE), root.join(KEY_FILE));
    for old in [&cert, &key] {
        match std::fs::remove_file(old) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(PhoneError::Certificate(format!("{}: {e}", old.display()))),
        }
    }
    run(
        bin,
        &[
            "cert".as_ref(),
            "--cert-file".as_ref(),
            cert.as_os_str(),
            "--key-file".as_ref(),
            key.as_os_str(),
            name.as_ref(),
        ],
        CERT_TIMEOUT,
    )
    .await?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| PhoneError::Certificate(format!("{}: {e}", key.display())))?;
    }
    let identity = Identity::from_pem_files(&cert, &key)?;
    identity.check_for(&name, crate::tls::unix_now())?;
    Ok((name, identity))
}
