//! A hello-world Tauri app: one window, one static page. `make bench` compares Countersign's
//! window with it (cold start to first paint, idle memory).

fn main() {
    if let Err(e) = tauri::Builder::default().run(tauri::generate_context!()) {
        eprintln!("hello-tauri: {e}");
        std::process::exit(1);
    }
}
