import FindCommand

// `fsfind-direct`: fsfind reading the index itself, in this process. The small `fsfind` becomes
// this program when no fsindexd answers for the index (or it declines a query); run on its own,
// it behaves exactly as `fsfind` (same options, output and exit status), only without the
// daemon's warm start.
await FSFind.main()
