//! Containers, clusters and hosted services: what only reads, and building an image of the
//! project. Running, executing in, applying to, or configuring another host, cluster, context or
//! identity asks.

use super::Operands::{No, Plain, Text};
use super::*;

/// `docker ps`, `docker compose ps` and the like (docker-ps(1)).
// Packed, so the list reads as one.
#[rustfmt::skip]
const LIST: &[Opt] = &[
    flag("-a"),
    flag("--all"),
    flag("-q"),
    flag("--quiet"),
    text("--format"),
    number("-n"),
    number("--last"),
    flag("--no-trunc"),
    text("-f"),
    text("--filter"),
];

/// `docker compose ps`: `-f` is read as compose's own `--file` anywhere after `compose`.
// Packed, so the list reads as one.
#[rustfmt::skip]
const COMPOSE_LIST: &[Opt] = &[
    flag("-a"), flag("--all"), flag("-q"), flag("--quiet"), text("--format"), text("--filter"),
    flag("--services"),
];

/// `docker compose logs`, without `-f` for the same reason.
// Packed, so the list reads as one.
#[rustfmt::skip]
const COMPOSE_LOGS: &[Opt] = &[
    flag("--follow"), text("--tail"), text("-n"), text("--since"), text("--until"), flag("-t"),
    flag("--timestamps"), flag("--no-color"),
];

/// docker-logs(1).
// Packed, so the list reads as one.
#[rustfmt::skip]
const LOGS: &[Opt] = &[
    flag("-f"),
    flag("--follow"),
    text("--tail"),
    text("-n"),
    text("--since"),
    text("--until"),
    flag("-t"),
    flag("--timestamps"),
];

/// docker-build(1): never `--output`, `--secret`, `--ssh`, `--build-context`, `--allow`,
/// `--network`, nor `-t`/`--tag`, which may name an image that other commands then run
/// (`-t ubuntu:latest`).
// Packed, so the list reads as one.
#[rustfmt::skip]
const BUILD: &[Opt] = &[
    path("-f"),
    path("--file"),
    text("--target"),
    flag("--no-cache"),
    flag("--pull"),
    flag("-q"),
    flag("--quiet"),
    text("--platform"),
    text("--progress"),
    text("--build-arg"),
    text("--label"),
    flag("--load"),
];

/// kubectl-get(1) and the readers: never `--kubeconfig`, `--context`, `--cluster`, `--server`,
/// `--token`, `--as`.
// Packed, so the list reads as one.
#[rustfmt::skip]
const KUBE: &[Opt] = &[
    text("-n"),
    text("--namespace"),
    one_of("-o", OUTPUT),
    one_of("--output", OUTPUT),
    flag("-A"),
    flag("--all-namespaces"),
    text("-l"),
    text("--selector"),
    flag("-w"),
    flag("--watch"),
    flag("--show-labels"),
    flag("--no-headers"),
    text("--field-selector"),
    text("--sort-by"),
    text("--tail"),
    text("-c"),
    text("--container"),
    text("--since"),
    flag("-p"),
    flag("--previous"),
    flag("--timestamps"),
    flag("--all-containers"),
    flag("--recursive"),
];

/// kubectl's output formats, never those read from a file (`jsonpath-file=`,
/// `go-template-file=`, `template-file=`), which print any file they name.
const OUTPUT: &[&str] = &[
    "wide",
    "json",
    "yaml",
    "name",
    "custom-columns",
    "jsonpath",
    "go-template",
    "template",
];

/// kubectl-logs(1): the readers' options and following the log.
// Packed, so the list reads as one.
#[rustfmt::skip]
const KUBE_LOGS: &[Opt] = &[
    flag("-f"), flag("--follow"), text("-n"), text("--namespace"), text("-l"), text("--selector"),
    text("--tail"), text("-c"), text("--container"), text("--since"), flag("-p"),
    flag("--previous"), flag("--timestamps"), flag("--all-containers"),
];

/// gh(1)'s readers: never `--web` or `-w` (it runs the browser).
// Packed, so the list reads as one.
#[rustfmt::skip]
const GH: &[Opt] = &[
    text("--json"),
    text("-q"),
    text("--jq"),
    text("-t"),
    text("--template"),
    text("-R"),
    text("--repo"),
    number("-L"),
    number("--limit"),
    text("-s"),
    text("--state"),
    text("--author"),
    text("--label"),
    text("-l"),
    text("--assignee"),
    text("-a"),
    text("--base"),
    text("-B"),
    flag("-c"),
    flag("--comments"),
    flag("--log"),
    flag("--log-failed"),
    text("-b"),
    text("--branch"),
    flag("--exit-status"),
    text("--workflow"),
    flag("--watch"),
    flag("--required"),
    text("--search"),
    text("-S"),
    flag("--name-only"),
    flag("--patch"),
    flag("--color"),
];

/// The entries.
// One program a paragraph, its options packed, so the table reads as one.
#[rustfmt::skip]
pub(in super::super) const KNOWN: &[Known] = &[
    Known {
        names: &["docker", "podman"],
        spelling: Spelling::Getopt,
        manual: "docker(1), docker-ps(1), docker-images(1), docker-logs(1), docker-build(1), docker-compose(1)",
        form: Form::Subcommands {
            // Never `run`, `exec`, `compose up`; never `-H`, `--context`, `--config`: another daemon or identity.
            globals: &[],
            subs: &[
                sub(&["ps"], args(LIST, No)),
                sub(&["container", "ls"], args(LIST, No)),
                sub(&["container", "list"], args(LIST, No)),
                sub(&["images"], args(LIST, Text)),
                sub(&["image", "ls"], args(LIST, Text)),
                sub(&["logs"], args(LOGS, Text)),
                sub(&["container", "logs"], args(LOGS, Text)),
                sub(&["inspect"], args(&[text("-f"), text("--format"), text("--type")], Text)),
                sub(&["version"], args(&[text("-f"), text("--format")], No)),
                sub(&["info"], args(&[text("-f"), text("--format")], No)),
                sub(&["build"], args(BUILD, Plain)),
                sub(&["buildx", "build"], args(BUILD, Plain)),
                sub(&["compose", "ps"], args(COMPOSE_LIST, Text)),
                sub(&["compose", "logs"], args(COMPOSE_LOGS, Text)),
                // Never `compose up`, `build`, `run`: the compose file names the images, their
                // tags, and what of the host they mount.
            ],
        },
    },
    Known {
        names: &["kubectl"],
        spelling: Spelling::Getopt,
        manual: "kubectl(1): get, describe, logs, top, explain, version",
        form: Form::Subcommands {
            globals: &[],
            subs: &[
                sub(&["get"], args(KUBE, Plain)),
                sub(&["describe"], args(KUBE, Plain)),
                sub(&["logs"], args(KUBE_LOGS, Plain)),
                sub(&["top", "pod"], args(KUBE, Plain)),
                sub(&["top", "pods"], args(KUBE, Plain)),
                sub(&["top", "node"], args(KUBE, Plain)),
                sub(&["top", "nodes"], args(KUBE, Plain)),
                sub(&["explain"], args(&[flag("--recursive")], Plain)),
                sub(&["version"], args(&[flag("--client"), one_of("-o", OUTPUT), one_of("--output", OUTPUT)], No)),
                sub(&["api-resources"], args(&[flag("--namespaced"), one_of("-o", OUTPUT)], No)),
            ],
        },
    },
    Known {
        names: &["gh"],
        spelling: Spelling::Getopt,
        manual: "gh(1): pr, issue, run, repo, release, workflow — view, list, status, diff, checks",
        // Never `gh api` (any request), a create, edit, merge, close or checkout.
        form: Form::Subcommands {
            globals: &[],
            subs: &[
                sub(&["pr", "view"], args(GH, Text)),
                sub(&["pr", "list"], args(GH, No)),
                sub(&["pr", "status"], args(GH, No)),
                sub(&["pr", "diff"], args(GH, Text)),
                sub(&["pr", "checks"], args(GH, Text)),
                sub(&["issue", "view"], args(GH, Text)),
                sub(&["issue", "list"], args(GH, No)),
                sub(&["issue", "status"], args(GH, No)),
                sub(&["run", "view"], args(GH, Text)),
                sub(&["run", "list"], args(GH, No)),
                sub(&["run", "watch"], args(GH, Text)),
                sub(&["repo", "view"], args(GH, Text)),
                sub(&["release", "view"], args(GH, Text)),
                sub(&["release", "list"], args(GH, No)),
                sub(&["workflow", "list"], args(GH, No)),
                sub(&["workflow", "view"], args(GH, Text)),
                sub(&["auth", "status"], args(&[], No)),
            ],
        },
    },
];
