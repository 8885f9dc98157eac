import AliyunOSS
import ArgumentParser

import Foundation

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Make a prefix match a local directory, or a directory match a prefix, moving only what differs: oss sync DIR oss://bucket/prefix | oss sync oss://bucket/prefix DIR",
        discussion: helpProse("""
            A file differs when the other side lacks it, its size differs, or (by default) it was modified after the
            object was written (uploads) or its modification time is not the object's Last-Modified (downloads);
            --checksum compares the CRC-64 of equal-sized files with the object's instead. Nothing is deleted unless
            --delete asks; --dry-run prints what would be done and does nothing. oss://bucket/folder and
            oss://bucket/folder/ both name the folder folder/. The batch's journal lives in --checkpoint-dir, so an
            interrupted sync run again resumes: files it finished are not sent again, a large file in flight resumes
            from its checkpoint.

            \(DeleteConfirmation.helpText)
            """))

    @Argument(help: "The source: a local directory or oss://bucket[/prefix].") var source: String
    @Argument(help: "The destination: oss://bucket[/prefix] or a local directory.") var destination: String
    @Flag(help: "Delete what the destination has and the source does not (never excluded paths).") var delete = false
    @Flag(help: "Print what would be uploaded, downloaded or deleted, and do nothing.") var dryRun = false
    @Flag(name: [.short, .long], help: "With --delete: delete more than one object or file without asking (for scripts).")
    var force = false
    @Flag(help: "Compare equal-sized files by CRC-64 (the server's x-oss-hash-crc64ecma) instead of modification time.")
    var checksum = false
    @Option(help: "Parts in flight per large file (1-64).") var threads = 4
    @Option(help: "Part size in bytes of the large files (minimum 102400; default 8 MiB).") var partSize: Int64?
    @Option(help: "Checkpoint directory (default: ~/.oss-swift/checkpoints).") var checkpointDir: String?
    @OptionGroup var directory: DirectoryOptions
    @OptionGroup(title: "Uploaded objects") var objects: UploadOptions
    @OptionGroup(title: "Client-side encryption") var encryption: EncryptionOptions
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard OSSURI.isRemote(source) != OSSURI.isRemote(destination) else {
            throw ValidationError("one side must be a local directory and the other oss://bucket[/prefix]")
        }
        if !objects.isEmpty, OSSURI.isRemote(source) {
            throw ValidationError("--content-type, --acl, --meta and --storage-class apply to uploads (to oss://)")
        }
        guard (1...64).contains(threads) else { throw ValidationError("--threads must be 1...64") }
        if let partSize, partSize < 102_400 { throw ValidationError("--part-size must be at least 102400 bytes") }
        if checksum && encryption.isEnabled {
            throw ValidationError("--checksum compares CRC-64s, and an encrypted object's is of its ciphertext: sync encrypted files by size and time")
        }
    }

    func run() async throws {
        try await runCommand {
            let command = DirectoryTransferCommand(
                source: source, destination: destination, mode: .sync(checksum ? .checksum : .sizeAndModificationTime),
                deleteExtras: delete, dryRun: dryRun, options: directory, threads: threads, partSize: partSize,
                recordDirectory: checkpointDirectory(checkpointDir), connection: connection,
                objectMetadata: try objects.metadata(), encryption: encryption)
            try await command.confirmDeletions(DeleteConfirmation(force: force))
            try await command.run()
        }
    }
}

/// The checkpoint directory `oss cp` and `oss sync` use: the one given, else ~/.oss-swift/checkpoints.
func checkpointDirectory(_ given: String?) -> String {
    if let given { return given }
    let home = ProcessInfo.processInfo.environment["HOME"] ?? NSTemporaryDirectory()
    return URL(fileURLWithPath: home).appendingPathComponent(".oss-swift/checkpoints").path
}
