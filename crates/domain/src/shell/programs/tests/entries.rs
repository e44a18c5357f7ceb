//! Programs the table did not know, added with their manuals: a prefix covers a plain
//! follow-up and none of what runs other code, and names the subcommand of those with them.

use super::*;

#[test]
fn search_and_sort_tools() {
    pins(
        "rg",
        &["rg -n needle src", "rg --files"],
        &[
            "rg -z needle logs.gz",
            "rg --pre ./evil needle",
            "rg --pre=./evil needle",
            "rg --pre-glob '*.pdf' needle",
            "rg --hostname-bin=./evil needle",
        ],
    );
    pins(
        "fd",
        &["fd -e rs", "fd -H name src"],
        &["fd -x rm", "fd --exec rm", "fd -X rm", "fd --exec-batch rm"],
    );
    pins(
        "sort data.txt",
        &["sort data.txt -r"],
        &[
            "sort data.txt --compress-program=./evil",
            "sort data.txt --compress=./evil",
        ],
    );
    pins(
        "ssh-keygen -l",
        &[],
        &[
            "ssh-keygen -l -f key.pub",
            "ssh-keygen -l -D /tmp/evil.so",
            "ssh-keygen -l -w /tmp/evil.so",
        ],
    );
    pins(
        "ssh-keygen",
        &[],
        &["ssh-keygen -lf key.pub", "ssh-keygen -K"],
    );
}

#[test]
fn test_and_build_runners() {
    pins(
        "pytest",
        &["pytest tests -x", "pytest -k name -q"],
        &[
            "pytest -p evil",
            "pytest --basetemp=/home/me",
            "pytest -c /tmp/evil.ini",
            "pytest --config-file=/tmp/evil.ini",
            "pytest --confcutdir=/",
            "pytest --rootdir=/tmp",
            "pytest -o 'addopts=-p evil'",
        ],
    );
    pins(
        "mvn test",
        &["mvn test -q", "mvn test -pl core"],
        &[
            "mvn test exec:exec",
            "mvn test -Dexec.executable=id",
            "mvn test '-DargLine=-javaagent:/x.jar'",
            "mvn test -f /tmp/pom.xml",
            "mvn test -s /tmp/settings.xml",
            "mvn test com.evil:plugin:1.0:run",
        ],
    );
    refused(&["mvn", "./mvnw", "mvn exec:exec", "mvn exec:java"]);
    pins(
        "./gradlew test",
        &["./gradlew test --offline", "./gradlew test --tests x"],
        &[
            "./gradlew test -I /tmp/evil.gradle",
            "./gradlew test --init-script=/tmp/x",
            "./gradlew test -Dorg.gradle.jvmargs=-javaagent:/x",
            "./gradlew test -p /tmp/x",
            "./gradlew test --project-dir=/x",
            "./gradlew test -g /x",
        ],
    );
    refused(&["gradle", "./gradlew", "gradle --init-script x build"]);
    pins(
        "just test",
        &["just test --verbose"],
        &[
            "just test --shell=./evil",
            "just test -f /x/justfile",
            "just test --justfile=/x",
            "just test -d /x",
            "just test --set x y",
            "just test 'x=y'",
            "just test --command id",
        ],
    );
    refused(&["just"]);
    pins(
        "ninja all",
        &["ninja all -j4"],
        &[
            "ninja all -C /x",
            "ninja all -f /x.ninja",
            "ninja all -t clean",
        ],
    );
    refused(&["ninja"]);
}

#[test]
fn programs_with_subcommands() {
    pins("gh pr", &["gh pr list", "gh pr view 1 --comments"], &[]);
    pins(
        "gh api",
        &[],
        &[
            "gh api repos/o/r --jq .name",
            "gh api repos/o/r/pulls",
            "gh api -X DELETE repos/o/r",
            "gh api --method=POST repos/o/r/forks",
            "gh api graphql -f 'query=mutation { x }'",
            "gh api repos/o/r/issues -F 'title=x'",
            "gh api repos/o/r/issues --input body.json",
        ],
    );
    pins(
        "gh repo",
        &["gh repo view"],
        &["gh repo clone o/r -- --upload-pack=id"],
    );
    refused(&[
        "gh",
        "gh extension",
        "gh extension install o/gh-evil",
        "gh ext",
        "gh alias set co 'pr checkout'",
        "gh config set editor vim",
        "gh codespace ssh",
    ]);
    pins(
        "hg log",
        &[],
        &[
            "hg log -l 5",
            "hg log --config 'alias.log=!id'",
            "hg log --config=hooks.pre-log=id",
            "hg log --cwd /x",
            "hg log -R /x",
            "hg log --repository=/x",
        ],
    );
    pins(
        "hg pull",
        &[],
        &[
            "hg pull -u",
            "hg pull -e 'sh -c id'",
            "hg pull --remotecmd=id",
        ],
    );
    refused(&["hg", "hg --config x=y log", "hg --debugger log"]);
    pins("rustup show", &[], &["rustup show active-toolchain"]);
    pins(
        "rustup toolchain",
        &[],
        &["rustup toolchain list", "rustup toolchain link evil /tmp/t"],
    );
    refused(&[
        "rustup",
        "rustup run",
        "rustup run stable cargo",
        "rustup default x",
    ]);
    pins(
        "poetry install",
        &["poetry install --no-root"],
        &[
            "poetry install -C /x",
            "poetry install --directory=/x",
            "poetry install -P /x",
        ],
    );
    refused(&[
        "poetry",
        "poetry run",
        "poetry run pytest",
        "poetry shell",
        "poetry self add x",
    ]);
    pins(
        "bundle install",
        &[],
        &[
            "bundle install --jobs 4",
            "bundle install --gemfile=/x/Gemfile",
        ],
    );
    refused(&[
        "bundle",
        "bundle exec",
        "bundle exec rake",
        "bundle console",
        "bundle config",
    ]);
    pins(
        "helm template",
        &[],
        &[
            "helm template chart",
            "helm template chart --post-renderer ./evil",
            "helm template chart --kube-context=prod",
            "helm template chart --kubeconfig /x",
        ],
    );
    refused(&["helm", "helm plugin install x"]);
}
