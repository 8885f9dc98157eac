import AliyunOSS
import ArgumentParser

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The options and the rule every command that deletes what a listing found shares (`rm -r`, `rm --all-versions`,
/// `rm -m`, `sync --delete`, `rb`): `--dry-run` prints what would be deleted and deletes nothing; more than one object is deleted only after
/// a yes (y/N) at a terminal, or with `--force`; with neither, the command refuses (exit 8) and deletes nothing.
/// aws s3 deletes without asking; this follows rm -i and ossutil's question instead, so a mistyped folder costs a
/// question, not the data. Objects named one by one (`oss rm oss://b/k1 oss://b/k2`) are deleted without one.
struct DeleteConfirmation {
    var force: Bool

    static let helpText = """
        Deleting: rm -r, rm --all-versions, rm -m (which aborts uploads in progress), sync --delete and rb print what \
        they would delete with --dry-run and delete nothing. Before deleting more than one object (or version, or \
        upload) they ask (y/N), listing the count and a few names, when standard input is a terminal; --force \
        deletes without asking (for scripts); without a terminal and without --force they refuse with exit status 8 \
        and delete nothing. Objects named one by one (oss rm oss://b/k1 oss://b/k2) are deleted without a question.
        """

    /// Returns when deleting `count` items (`what`, e.g. "objects under oss://b/site/") may go ahead; throws
    /// ``ExitStatus/notConfirmed`` when it may not. `names` are some of them, shown in the question. `verb` is what
    /// is done to them, and its past participle (`rm -m` aborts uploads).
    func confirm(count: Int, what: String, names: [String], verb: (String, String) = ("delete", "deleted")) throws {
        guard count > 1, !force else { return }
        let (act, done) = verb
        let shown = names.prefix(5)
        let list = shown.joined(separator: ", ") + (count > shown.count ? ", ... (\(count - shown.count) more)" : "")
        guard isatty(STDIN_FILENO) == 1 else {
            throw CLIFailure(
                .notConfirmed,
                "refusing to \(act) \(count) \(what) (\(list)) without a terminal to ask: pass --force to \(act) them, "
                    + "or --dry-run to list them; nothing was \(done)")
        }
        StandardStreams.writeError(Data("\(act) \(count) \(what): \(list)? [y/N] ".utf8))
        let answer = (readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else {
            throw CLIFailure(.notConfirmed, "not confirmed: nothing was \(done)")
        }
    }
}

/// `--dry-run` and `--force` of the commands that delete many objects.
struct DeleteOptions: ParsableArguments {
    @Flag(help: "Print what would be deleted (one oss:// line each on standard output) and delete nothing.")
    var dryRun = false
    @Flag(name: [.short, .long], help: "Delete more than one object without asking (for scripts; without a terminal a delete of more than one object is refused otherwise).")
    var force = false

    var confirmation: DeleteConfirmation { DeleteConfirmation(force: force) }
}

extension DirectoryTransferCommand {
    /// `sync --delete` without `--force`: a dry run of the same request finds what the sync would delete, and
    /// more than one deletion is confirmed (or refused) before anything is transferred or deleted.
    func confirmDeletions(_ confirmation: DeleteConfirmation) async throws {
        guard deleteExtras, !dryRun, !confirmation.force else { return }
        var plan = try request()
        plan.options.dryRun = true
        try FileManager.default.createDirectory(atPath: recordDirectory, withIntermediateDirectories: true)
        let client = try connection.makeClient()
        let names: [String]
        do {
            let manager = OSSTransferManager(client: client, recordDirectoryPath: recordDirectory)
            let batch = try await manager.startBatch(plan)
            let upload = plan.direction == .upload
            let collector = Task {
                var names: [String] = []
                for await event in batch.events {
                    guard case .item(let item) = event, item.outcome == .wouldDelete else { continue }
                    names.append(upload ? "oss://\(plan.bucketName)/\(item.key)" : plan.localDirectoryPath + "/" + item.relativePath)
                }
                return names
            }
            _ = try await batch.result()
            names = await collector.value
        } catch {
            try? await client.shutdown()
            throw CLIFailure(error)
        }
        try? await client.shutdown()
        let side = plan.direction == .upload ? "objects" : "local files"
        try confirmation.confirm(count: names.count, what: "\(side) the source does not have", names: names)
    }
}
