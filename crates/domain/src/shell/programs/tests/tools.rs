//! The table's interpreters, query shells and file and host tools: a prefix covers a plain
//! follow-up and none of their dangerous options, and may not hold one.

use super::*;

#[test]
fn text_and_query_tools() {
    pins(
        "sed s/a/b/",
        &[],
        &[
            "sed s/a/b/ file.txt",
            "sed s/a/b/ -e '1e id' file",
            "sed s/a/b/ --expr='1e id' f",
            "sed s/a/b/ -f evil.sed",
        ],
    );
    pins(
        "awk '{print}'",
        &[],
        &[
            "awk '{print}' file",
            "awk '{print}' -f evil.awk",
            "awk '{print}' --load=x",
        ],
    );
    // Any SQL after the database is code (`VACUUM INTO '/x'` writes a file): only the options.
    pins(
        "sqlite3 app.db",
        &[],
        &[
            "sqlite3 app.db -readonly",
            "sqlite3 app.db 'select 1'",
            "sqlite3 app.db '.shell id'",
            "sqlite3 app.db '.system id'",
            "sqlite3 app.db -cmd '.shell id'",
            "sqlite3 app.db \"select load_extension('x')\"",
            "sqlite3 app.db \"select edit('a', 'id')\"",
        ],
    );
    pins(
        "psql -d app",
        &[],
        &[
            "psql -d app -At",
            "psql -d app -c '\\! id'",
            "psql -d app -f evil.sql",
            "psql -d app -o '|id'",
            "psql -d app -v 'x=1'",
        ],
    );
    pins(
        "node server.js",
        &[],
        &["node server.js -p 3000 --require x"],
    );
    old_grant(
        "node",
        &[],
        &[
            "node app.js",
            "node --require ./evil.js app.js",
            "node -e 'x' app.js",
        ],
    );
    old_grant(
        "perl",
        &[],
        &[
            "perl script.pl -e x",
            "perl -Mevil script.pl",
            "perl -e 'x'",
        ],
    );
    old_grant(
        "ruby",
        &[],
        &["ruby script.rb", "ruby -revil script.rb", "ruby -e x"],
    );
    refused(&["node -r ./x app.js", "perl -e", "ruby -e"]);
}

#[test]
fn file_and_host_tools() {
    pins(
        "find .",
        &["find . -name '*.rs'", "find . -type f -newer x"],
        &[
            "find . -exec sh -c id ';'",
            "find . -delete",
            "find . -execdir id '{}' +",
            "find . -fprint /tmp/x",
        ],
    );
    pins(
        "tar -xzf archive.tgz",
        &[],
        &[
            "tar -xzf archive.tgz -v",
            "tar -xzf archive.tgz -C out",
            "tar -xzf archive.tgz --to-command='sh -c id'",
            "tar -xzf archive.tgz --checkpoint-action=exec=id",
            "tar -xzf archive.tgz -I 'sh -c id'",
            "tar -xzf archive.tgz --use-compress=id",
        ],
    );
    pins(
        "tar",
        &[],
        &[
            "tar xzf a.tgz",
            "tar xIf id a.tar",
            "tar -xIfoo a.tar",
            "tar -xf host:a.tar",
        ],
    );
    pins(
        "zip -r out.zip src",
        &[],
        &[
            "zip -r out.zip src docs",
            "zip -r out.zip src -T -TT 'sh -c id'",
            "zip -r out.zip src --unzip-command=id",
        ],
    );
    refused(&[
        "xargs", "rsync -a", "ssh host", "scp a b", "curl -s", "wget -q",
    ]);
    // Grants from before runners were refused still do not cover what runs programs.
    old_grant(
        "rsync -a",
        &[],
        &[
            "rsync -a src/ dst/",
            "rsync -a -e 'sh -c id' x y",
            "rsync -a --rsync-path=id x y",
        ],
    );
    old_grant("ssh host", &[], &["ssh host -o 'ProxyCommand=id'"]);
    old_grant("scp", &[], &["scp -S id a b"]);
    old_grant(
        "curl",
        &[],
        &["curl https://x.example", "curl -K evil.cfg https://x"],
    );
    old_grant("wget", &[], &["wget --use-askpass=id https://x"]);
    old_grant("xargs -0", &[], &["xargs -0 -I x id x"]);
}
