//! Options that write a file the command names only as their value, where the person did not
//! look when they chose the prefix (`git log --output=…`): never covered by a prefix.

use super::*;

#[test]
fn options_that_write_files_are_never_covered() {
    pins(
        "git log",
        &["git log -1 --format=%H", "git log --oneline -5"],
        &[
            "git log -1 --format='tformat:{\"permissions\":{}}' \
             --output=/p/.claude/settings.json",
            "git log --outp=/p/.bashrc",
            "git log --output /p/.bashrc",
        ],
    );
    pins(
        "git diff",
        &["git diff HEAD", "git diff --stat"],
        &[
            "git diff --output=/x",
            "git diff --outp=/x",
            "git diff --output /x",
        ],
    );
    pins(
        "git show",
        &["git show HEAD"],
        &["git show --output=/x HEAD"],
    );
    pins(
        "git archive",
        &[],
        &[
            "git archive --format=tar HEAD",
            "git archive -o /x HEAD",
            "git archive --output=/x HEAD",
            "git archive --output /x HEAD",
        ],
    );
    pins(
        "git format-patch",
        &[],
        &[
            "git format-patch -1",
            "git format-patch -o /x -1",
            "git format-patch --output-directory=/x -1",
            "git format-patch --output-dir /x -1",
        ],
    );
    pins("git bugreport", &[], &["git bugreport -o /x"]);
    pins("git diagnose", &[], &["git diagnose -o /x"]);
    pins(
        "sort data.txt",
        &["sort data.txt -u", "sort data.txt -k 2 -n"],
        &[
            "sort data.txt -o /x",
            "sort data.txt --output=/x",
            "sort data.txt -uo /x",
        ],
    );
    pins(
        "zip -r out.zip src",
        &[],
        &[
            "zip -r out.zip src docs",
            "zip -r out.zip src --out /x.zip",
            "zip -r out.zip src -O /x.zip",
        ],
    );
    pins(
        "dd if=disk.img",
        &[],
        &["dd if=disk.img bs=1M count=1", "dd if=disk.img of=/dev/sda"],
    );
    // Refused as prefixes, but grants from before still do not cover where they write.
    old_grant(
        "curl",
        &[],
        &[
            "curl -O https://x.example/a.tgz",
            "curl https://x.example",
            "curl -o /p/.bashrc https://x",
            "curl --output=/x https://x",
            "curl --output-dir /x -O https://x",
            "curl -sSLo /x https://x",
        ],
    );
    old_grant(
        "wget",
        &[],
        &[
            "wget https://x.example/a.tgz",
            "wget -O /x https://x",
            "wget --output-document=/x https://x",
            "wget -P /x https://x",
        ],
    );
}
