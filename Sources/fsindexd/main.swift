import DaemonCommand

// `fsindexd`: the background watcher (Sources/DaemonCommand). The installed package has no
// such file: there `fsindexd` is a link to the multi-call `fsindex`.
FSIndexDaemon.prepareProcess()
await FSIndexDaemon.main()
