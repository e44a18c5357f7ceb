//! The table's project and package tools: a prefix covers a plain follow-up and none of
//! their dangerous options or subcommands, and may not hold one.

use super::*;

#[test]
fn git() {
    pins(
        "git fetch",
        &["git fetch origin", "git fetch --prune origin main"],
        &[
            "git fetch --upload-pack='sh -c \"id >/tmp/x\"' .",
            "git fetch --upload-p=x .",
            "git fetch origin --upload-pack x",
        ],
    );
    pins(
        "git push",
        &["git push origin main"],
        &["git push --receive-pack=x o", "git push --exec=x o"],
    );
    pins(
        "git rebase",
        &[],
        &[
            "git rebase -i main",
            "git rebase -x id main",
            "git rebase -ix id m",
            "git rebase --exec=id m",
        ],
    );
    pins(
        "git bisect",
        &[],
        &["git bisect good", "git bisect run ./evil"],
    );
    pins(
        "git submodule",
        &[],
        &["git submodule update --init", "git submodule foreach 'id'"],
    );
    pins(
        "git clone",
        &[],
        &[
            "git clone --depth 1 u",
            "git clone -c core.fsmonitor=id u",
            "git clone -u x u",
            "git clone --template=/t u",
        ],
    );
    pins(
        "git grep",
        &["git grep -n needle"],
        &["git grep -O needle", "git grep --open-files-in-pager=x n"],
    );
    pins(
        "git difftool",
        &[],
        &[
            "git difftool HEAD",
            "git difftool -x id",
            "git difftool --extcmd=id",
        ],
    );
    pins(
        "git send-email",
        &[],
        &[
            "git send-email a.patch",
            "git send-email --sendmail-cmd=id a.patch",
        ],
    );
    pins("git --no-pager log", &["git --no-pager log -1"], &[]);
    refused(&[
        "git",
        "git --no-pager",
        "git config",
        "git config core.pager",
        "git filter-branch",
        "git -c core.pager=id log",
        "git -C /tmp/x log",
        "git --config-env=a=B log",
        "git --exec-path=/tmp log",
        "git --git-dir=/tmp/x log",
        "git --work-tree=/x log",
        "git --unknown-global log",
        "git fetch --upload-pack=x",
    ]);
    // A one-word grant from before the table.
    old_grant(
        "git",
        &["git status", "git --no-pager log"],
        &[
            "git -c core.pager=id log",
            "git -c core.fsmonitor=id status",
            "git config alias.x '!id'",
        ],
    );
}

#[test]
fn npm_pnpm_yarn_bun() {
    pins(
        "npm test",
        &[],
        &[
            "npm test -- --watch",
            "npm test --node-options=--import=data:text/javascript,x",
            "npm test --node-o=x",
            "npm test --script-shell=/tmp/x",
            "npm test --prefix=/tmp/other",
        ],
    );
    pins(
        "npm run build",
        &[],
        &[
            "npm run build -- --mode=x",
            "npm run build --script-shell=/x",
        ],
    );
    refused(&[
        "npm",
        "npm exec",
        "npm x",
        "npm exec cowsay",
        "npm init vite",
        "npm run",
        "npm edit",
    ]);
    pins(
        "pnpm test",
        &[],
        &[
            "pnpm test --watch",
            "pnpm test -C /tmp/x",
            "pnpm test --config.node-options=x",
        ],
    );
    refused(&[
        "pnpm",
        "pnpm dlx",
        "pnpm exec",
        "pnpm dlx cowsay",
        "pnpm create vite",
    ]);
    pins(
        "yarn test",
        &[],
        &["yarn test --coverage", "yarn test --cwd /tmp/x"],
    );
    refused(&[
        "yarn",
        "yarn dlx",
        "yarn exec",
        "yarn node",
        "yarn workspaces foreach",
    ]);
    pins(
        "bun test",
        &["bun test src"],
        &["bun test --preload ./evil.ts", "bun test -r x"],
    );
    pins(
        "bun run build",
        &["bun run build"],
        &["bun run build --eval=x"],
    );
    refused(&[
        "bun",
        "bun x",
        "bun x cowsay",
        "bun exec",
        "bun run",
        "bun create x",
    ]);
}

#[test]
fn python_tools() {
    pins(
        "python3 manage.py",
        &[],
        &[
            "python3 manage.py migrate",
            "python3 manage.py test app",
            "python3 manage.py shell -c 'import os'",
            "python3 manage.py dbshell",
            "python3 manage.py test --settings=evil",
        ],
    );
    refused(&[
        "python3",
        "python3 -c",
        "python3 manage.py shell",
        "python3 manage.py dbshell",
    ]);
    pins(
        "pip install",
        &[],
        &[
            "pip install requests",
            "pip install --index-url https://x y",
            "pip install -i https://x y",
            "pip install --python /x y",
        ],
    );
    refused(&["pip", "pip config"]);
    pins(
        "uv sync",
        &["uv sync --frozen"],
        &["uv sync --python /tmp/py", "uv sync --index-url=x"],
    );
    refused(&[
        "uv",
        "uv run",
        "uv run pytest",
        "uv tool run",
        "uv tool run ruff",
        "uvx ruff",
        "pipx run x",
    ]);
}

#[test]
fn cargo_go_deno_make() {
    pins(
        "cargo test",
        &["cargo test --workspace", "cargo test -- --nocapture"],
        &[
            "cargo test --config 'target.x.runner=\"id\"'",
            "cargo test -Zunstable-options",
            "cargo test --manifest-path /tmp/x/Cargo.toml",
        ],
    );
    pins(
        "cargo run",
        &[],
        &["cargo run -- --port 1", "cargo run --config 'x=1'"],
    );
    refused(&[
        "cargo",
        "cargo install",
        "cargo install ripgrep",
        "cargo +nightly build",
    ]);
    pins(
        "go test",
        &["go test ./..."],
        &[
            "go test -c ./x",
            "go test -exec ./evil ./...",
            "go test -toolexec=id",
            "go test -vettool=id",
            "go test --exec=x",
        ],
    );
    pins(
        "go build",
        &["go build ./..."],
        &["go build -ldflags=-extld=id"],
    );
    // What follows the package goes to the program go builds.
    pins("go run .", &[], &["go run . -exec x", "go run . -v"]);
    refused(&[
        "go",
        "go run",
        "go run example.com/x@latest",
        "go env -w 'GOFLAGS=x'",
        "go install",
    ]);
    pins(
        "deno test",
        &["deno test src/"],
        &[
            "deno test -A",
            "deno test --allow-run",
            "deno test --import-map=x",
        ],
    );
    pins("deno run main.ts", &[], &["deno run main.ts --port 1"]);
    refused(&[
        "deno",
        "deno eval",
        "deno run",
        "deno run https://x.example/y.ts",
        "deno run npm:x",
    ]);
    pins(
        "make test",
        &["make test -j4"],
        &[
            "make test lint",
            "make test 'SHELL=/tmp/x'",
            "make test -f /tmp/Makefile",
            "make test --eval=x",
            "make test -C /tmp",
            "make test -kf /tmp/M",
        ],
    );
    refused(&["make", "make -j4", "make 'CC=id' test"]);
    // Unquoted, after the name, it is the same word to make.
    assert!(prefix_covers(&split("make test"), &[split("make test SHELL=/tmp/x")]).is_err());
}

#[test]
fn containers() {
    pins(
        "docker build",
        &["docker build --no-cache ."],
        &["docker build --privileged .", "docker build -t app ."],
    );
    // The compose file names the images and what of the host they mount.
    pins(
        "docker compose up",
        &[],
        &["docker compose up -d", "docker compose up -f /tmp/x.yml"],
    );
    refused(&[
        "docker",
        "docker run",
        "docker run alpine",
        "docker exec",
        "docker create",
        "docker -H tcp://x ps",
        "docker container run",
        "docker compose run",
        "podman run",
    ]);
    pins(
        "kubectl get",
        &["kubectl get pods -n default"],
        &["kubectl get pods --kubeconfig=/tmp/k"],
    );
    refused(&[
        "kubectl",
        "kubectl exec",
        "kubectl run",
        "kubectl debug",
        "kubectl config set-credentials",
    ]);
}
