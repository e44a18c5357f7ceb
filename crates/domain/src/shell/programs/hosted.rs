//! Containers, clusters and hosted services: their subcommands that run any image or command, and
//! options that reach another host, cluster or identity.

use super::Kind::*;
use super::What::*;
use super::*;

/// The table's entries for these programs, in the order the chooser names examples in.
// One exclusion a line, so the table reads as one.
#[rustfmt::skip]
pub const PROGRAMS: &[Program] = &[
    program(
        &["docker", "podman"],
        GETOPT,
        Shape::Subcommands {
            globals: &["-D", "--debug", "-l=", "--log-level="],
        },
        &[],
        &[
            any(Sub("run"), Runner, "docker-run(1): any image, any command"),
            any(Sub("exec"), Runner, "docker-exec(1): any command in a container"),
            any(Sub("create"), Runner, "docker-create(1)"),
            any(Sub("plugin"), Runner, "docker-plugin-install(1): runs with the daemon's rights"),
            after("container", Word("run"), Runner, "docker-container-run(1)"),
            after("container", Word("exec"), Runner, "docker-container-exec(1)"),
            after("container", Word("create"), Runner, "docker-container-create(1)"),
            after("compose", Word("run"), Runner, "docker-compose-run(1)"),
            after("compose", Word("exec"), Runner, "docker-compose-exec(1)"),
            after("compose", Opt("-f="), Setting, "docker-compose(1): -f, --file"),
            after("compose", Opt("--file="), Setting, "docker-compose(1): --file"),
            after("compose", Opt("--project-directory="), Setting, "docker-compose(1)"),
            before(Opt("-H="), Setting, "docker(1): -H, --host"),
            before(Opt("--host="), Setting, "docker(1): --host"),
            before(Opt("-c="), Setting, "docker(1): -c, --context"),
            before(Opt("--context="), Setting, "docker(1): --context"),
            before(Opt("--config="), Setting, "docker(1): --config (credential helpers)"),
            any(Opt("--privileged"), Setting, "docker-run(1): --privileged"),
            after("build", Opt("-o="), Writes, "docker-build(1): -o, --output"),
            after("build", Opt("--output="), Writes, "docker-build(1): --output"),
            after("build", Opt("--allow="), Setting, "docker-buildx-build(1): --allow"),
            after("buildx", Opt("-o="), Writes, "docker-buildx-build(1): -o, --output"),
            after("buildx", Opt("--output="), Writes, "docker-buildx-build(1): --output"),
            after("buildx", Opt("--allow="), Setting, "docker-buildx-build(1): --allow"),
        ],
    ),
    program(
        &["kubectl"],
        GETOPT,
        Shape::Subcommands {
            globals: &[
                "-n=", "--namespace=", "-v=", "--request-timeout=",
            ],
        },
        &[],
        &[
            any(Sub("exec"), Runner, "kubectl-exec(1): any command in a pod"),
            any(Sub("run"), Runner, "kubectl-run(1): any image"),
            any(Sub("debug"), Runner, "kubectl-debug(1)"),
            any(Sub("attach"), Runner, "kubectl-attach(1): a running container's input"),
            any(Sub("cp"), Command, "kubectl-cp(1): runs tar in the container"),
            after("create", Word("job"), Runner, "kubectl-create-job(1): any image and command"),
            after("create", Word("cronjob"), Runner, "kubectl-create-cronjob(1)"),
            after("create", Word("deployment"), Runner, "kubectl-create-deployment(1): --image"),
            any(Opt("--kubeconfig="), Setting, "kubectl(1): --kubeconfig (exec plugins)"),
            any(Opt("--context="), Setting, "kubectl(1): --context (another cluster, credentials)"),
            any(Opt("--cluster="), Setting, "kubectl(1): --cluster"),
            any(Opt("--user="), Setting, "kubectl(1): --user (credentials, exec plugins)"),
            any(Opt("--server="), Setting, "kubectl(1): -s, --server"),
            any(Opt("-s="), Setting, "kubectl(1): -s"),
            any(Opt("--as="), Setting, "kubectl(1): --as (impersonation)"),
            any(Opt("--as-group="), Setting, "kubectl(1): --as-group"),
            any(Opt("--as-uid="), Setting, "kubectl(1): --as-uid"),
            any(Opt("--token="), Setting, "kubectl(1): --token"),
            any(Opt("--exec-command="), Command, "kubectl-config-set-credentials(1)"),
            after("config", Word("set-credentials"), Setting, "kubectl-config(1)"),
            after("config", Word("set"), Setting, "kubectl-config-set(1)"),
        ],
    ),
    program(
        &["helm"],
        GETOPT,
        Shape::Subcommands {
            globals: &["-n=", "--namespace=", "--debug"],
        },
        &[],
        &[
            any(Opt("--post-renderer="), Command, "helm-install(1), helm-template(1)"),
            any(Opt("--post-renderer-args="), Command, "helm-install(1)"),
            any(Sub("plugin"), Runner, "helm-plugin-install(1): plugins and their hooks run"),
            any(Opt("--kubeconfig="), Setting, "helm(1): --kubeconfig"),
            any(Opt("--kube-context="), Setting, "helm(1): --kube-context"),
            any(Opt("--kube-apiserver="), Setting, "helm(1): --kube-apiserver"),
            any(Opt("--kube-token="), Setting, "helm(1): --kube-token"),
            any(Opt("--kube-as-user="), Setting, "helm(1): --kube-as-user"),
            any(Opt("--kube-as-group="), Setting, "helm(1): --kube-as-group"),
            any(Opt("--repository-config="), Setting, "helm(1): --repository-config"),
            any(Opt("--registry-config="), Setting, "helm(1): --registry-config"),
        ],
    ),
    program(
        &["gh"],
        GETOPT,
        Shape::Subcommands {
            globals: &["--help", "--version"],
        },
        &[],
        &[
            any(Sub("extension"), Runner, "gh-extension(1): installs and runs extensions"),
            any(Sub("extensions"), Runner, "gh-extension(1)"),
            any(Sub("ext"), Runner, "gh-extension(1): gh ext"),
            any(Sub("alias"), Setting, "gh-alias-set(1): --shell aliases run commands"),
            any(Sub("config"), Setting, "gh-config-set(1): editor, pager, browser"),
            after("codespace", Word("ssh"), Runner, "gh-codespace-ssh(1): any command"),
            after("cs", Word("ssh"), Runner, "gh-codespace-ssh(1)"),
            after("repo", Word("--"), Command, "gh-repo-clone(1): -- <gitflags> (--upload-pack)"),
            after("api", Opt("-X="), Writes, "gh-api(1): -X, --method"),
            after("api", Opt("--method="), Writes, "gh-api(1): --method"),
            after("api", Opt("-f="), Writes, "gh-api(1): -f, --raw-field (a POST)"),
            after("api", Opt("--raw-field="), Writes, "gh-api(1): --raw-field"),
            after("api", Opt("-F="), Writes, "gh-api(1): -F, --field (a POST)"),
            after("api", Opt("--field="), Writes, "gh-api(1): --field"),
            after("api", Opt("--input="), Writes, "gh-api(1): --input (a POST)"),
        ],
    ),
];
