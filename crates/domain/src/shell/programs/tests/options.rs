//! Options the table missed for programs it knows, each one a way to act somewhere the person
//! did not choose: another cluster, another install location, code given as an argument.

use super::*;

#[test]
fn kubectl_acts_on_no_other_cluster_or_identity_and_runs_no_image() {
    pins(
        "kubectl get",
        &["kubectl get pods -n default", "kubectl get pods -o json"],
        &[
            "kubectl get secrets --context=prod",
            "kubectl get secrets --context prod",
            "kubectl get pods --server=https://x.example",
            "kubectl get pods -s https://x.example",
            "kubectl get pods --as=admin",
            "kubectl get pods --as-group=system:masters",
            "kubectl get pods --kubeconfig=/tmp/k",
            "kubectl get pods --token=x",
            "kubectl get pods --user=x",
            "kubectl get pods --cluster=x",
        ],
    );
    pins(
        "kubectl create",
        &[],
        &[
            "kubectl create namespace dev",
            "kubectl create job j --image=busybox -- sh -c id",
            "kubectl create cronjob c --image=x --schedule='*/1 * * * *' -- id",
            "kubectl create deployment d --image=evil",
        ],
    );
    refused(&["kubectl --context prod get", "kubectl create job"]);
}

#[test]
fn package_managers_install_nowhere_else() {
    pins(
        "npm install",
        &[],
        &[
            "npm install -D vitest",
            "npm install lodash",
            "npm install -g evil",
            "npm install --global evil",
            "npm install --prefix=/x y",
            "npm install --cache=/tmp/c y",
            "npm install --location=global y",
        ],
    );
    // npm runs only the workspaces the project's package.json declares: a path to any other
    // stops with "No workspaces found" (measured with npm 11.19.1), so a workspace is harmless.
    pins(
        "npm test",
        &["npm test --workspace=packages/a", "npm test -w a"],
        &["npm test --workspace=/tmp/evil"],
    );
    pins(
        "pip install",
        &["pip install -r requirements.txt"],
        &[
            "pip install requests",
            "pip install --target /x y",
            "pip install -t /x y",
            "pip install --user y",
            "pip install --prefix /x y",
            "pip install --root /x y",
        ],
    );
    pins(
        "uv pip",
        &[],
        &[
            "uv pip install requests",
            "uv pip install --config-setting=x=y ./pkg",
            "uv pip install -C 'x=y' ./pkg",
            "uv pip install --target /x y",
        ],
    );
    pins(
        "go build",
        &["go build ./...", "go build -v ."],
        &["go build -o /usr/local/bin/git .", "go build -o=/x ."],
    );
    pins(
        "docker build",
        &["docker build --pull ."],
        &[
            "docker build -t ubuntu:latest .",
            "docker build -o /x .",
            "docker build --output=type=local,dest=/x .",
            "docker build --output /x .",
        ],
    );
}

#[test]
fn query_shells_and_archives_take_no_code_or_directory_after_the_prefix() {
    pins(
        "sqlite3 app.db",
        &[],
        &[
            "sqlite3 app.db -json",
            "sqlite3 app.db -readonly",
            "sqlite3 app.db 'select 1'",
            "sqlite3 app.db \"VACUUM INTO '/p/.bashrc'\"",
            "sqlite3 app.db \"ATTACH '/x' AS x\"",
            "sqlite3 app.db -Ax",
            "sqlite3 app.db -A -x",
            "sqlite3 app.db --Axf",
            "sqlite3 app.db -- '-- x'",
        ],
    );
    pins(
        "tar -xzf a.tgz",
        &[],
        &[
            "tar -xzf a.tgz --strip-components=1",
            "tar -xzf a.tgz -v",
            "tar -xzf a.tgz -C /",
            "tar -xzf a.tgz -C out",
            "tar -xzf a.tgz --directory=/x",
            "tar -xzf a.tgz -P",
            "tar -xzf a.tgz --absolute-names",
        ],
    );
    pins(
        "tar",
        &[],
        &["tar xzf a.tgz", "tar xPf a.tar", "tar xzf a.tgz -C /"],
    );
    pins(
        "psql -d app",
        &[],
        &[
            "psql -d app -At",
            "psql -d app -h prod.example",
            "psql -d app --host=prod",
            "psql -d app -d 'host=prod dbname=app'",
            "psql -d app postgresql://prod/app",
        ],
    );
}

#[test]
fn runners_take_no_code_or_rights_after_the_prefix() {
    pins(
        "python3 manage.py",
        &[],
        &[
            "python3 manage.py test app",
            "python3 manage.py test --testrunner=evil.Runner",
        ],
    );
    pins(
        "deno test",
        &["deno test src/"],
        &[
            "deno test --allow-read",
            "deno test --allow-write",
            "deno test --allow-write=/x",
            "deno test --allow-run",
            "deno test --allow-env",
            "deno test --allow-net",
            "deno test --allow-sys",
            "deno test --allow-ffi",
            "deno test --allow-all",
            "deno test -A",
            "deno test -W",
            "deno test -N",
        ],
    );
}
