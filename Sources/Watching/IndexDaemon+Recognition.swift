import Attributes
import Configuration
import Dispatch
import Indexing
import Isolation
import Logging
import Synchronization
import Updating

/// The OCR pass (issue 28): made from the settings on first use, and again after a reload.
extension IndexDaemon {
    /// The OCR pass for the current settings, made on first use (a problem is logged once);
    /// nil when OCR is off or cannot run.
    func recognitionPass() -> RecognitionPass? {
        recognition.withLock { current in
            if let current { return current.pass }
            let settings = state.withLock { $0.settings }
            var made: RecognitionPass?
            switch RecognitionPass.configured(store: store, settings: settings) {
            case .success(let pass)?: made = pass
            case .failure(let problem)?:
                // Said when it matters (there are pictures or scans to read), once per start or reload.
                if (try? store.pendingRecognitionCount()) ?? 0 > 0 { logger.warning("\(problem.description)") }
            case nil: break
            }
            current = RecognitionState(pass: made)
            return made
        }
    }

    /// Forgets the OCR pass (settings reloaded): the next batch makes it again.
    func resetRecognition() {
        let old = recognition.withLock { current in
            defer { current = nil }
            return current?.pass
        }
        old?.pool.stopIdle()
    }
}

/// The daemon's OCR pass, once made (`pass` nil: OCR is off or cannot run).
struct RecognitionState: Sendable {
    var pass: RecognitionPass?
}
