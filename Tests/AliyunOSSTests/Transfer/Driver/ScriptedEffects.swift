@testable import AliyunOSS
import OSSResumable

/// Scripted effects: what the upload's and the download's share, through their ``TransferScript``.
protocol ScriptedEffects: OSSTransferEffects {
    var script: TransferScript { get }
}

extension ScriptedEffects {
    var progress: OSSTransferProgressReporter { script.progress }

    func deleteRecord() { script.note("delete record") }

    func discardRecord(reason: OSSResumableError) { script.note("discard record") }
}
