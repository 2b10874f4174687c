/// The systemd user unit of fsindexd, as `fsindex setup` writes it when the package's is not
/// installed: `Config/fsindexd.service` from `[Unit]` on (a test keeps the two equal), with
/// `ExecStart` naming the fsindexd to run.
///
/// For example, `ServiceUnit.text(daemon: "/opt/fsindex/bin/fsindexd")` runs
/// `/opt/fsindex/bin/fsindexd --foreground`.
package enum ServiceUnit {
    /// The unit's name, for `systemctl --user enable --now`.
    package static let name = "fsindexd.service"

    package static func text(daemon: String) -> String {
        let exec = daemon.contains(" ") ? "\"\(daemon)\"" : daemon
        return """
            # systemd user unit for fsindexd, the FSIndex watcher, written by `fsindex setup`.
            # Reload the config (roots added or removed): systemctl --user reload fsindexd
            \(body(execStart: exec + " --foreground"))
            """
    }

    /// The unit from `[Unit]` on.
    package static func body(execStart: String) -> String {
        """
        [Unit]
        Description=FSIndex file indexer (watches the configured roots)
        Documentation=file://%h/.config/fsindex/config.toml

        [Service]
        Type=simple
        ExecStart=\(execStart)
        ExecReload=/bin/kill -HUP $MAINPID
        # SIGTERM finishes the batch at hand, then exits 0.
        KillSignal=SIGTERM
        TimeoutStopSec=30
        Restart=on-failure
        RestartSec=10
        # Idle costs nothing, and indexing yields to everything else.
        Nice=10
        IOSchedulingClass=idle
        CPUSchedulingPolicy=batch

        [Install]
        WantedBy=default.target

        """
    }
}
