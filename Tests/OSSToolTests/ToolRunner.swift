import AliyunOSS
import Foundation
import OSSLocalServer
import Testing

/// Runs the built `oss` executable as a child process, the way a user would.
struct ToolRunner {
    static let binary: URL = {
        // The test bundle sits in the products directory, beside the executables it depends on.
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<3 where !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("oss").path) {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("oss")
    }()

    var environment: [String: String]

    init(server: LocalOSSServer? = nil, home: URL) {
        var env = ProcessInfo.processInfo.environment
        for name in ["OSS_ACCESS_KEY_ID", "OSS_ACCESS_KEY_SECRET", "OSS_SESSION_TOKEN", "OSS_ENDPOINT", "OSS_REGION"] {
            env[name] = nil
        }
        env["HOME"] = home.path
        if let server {
            env["OSS_ACCESS_KEY_ID"] = server.credentials.accessKeyId
            env["OSS_ACCESS_KEY_SECRET"] = server.credentials.accessKeySecret
            env["OSS_ENDPOINT"] = server.endpoint.absoluteString
            env["OSS_REGION"] = "cn-hangzhou"
        }
        environment = env
    }

    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Starts `oss arguments...`, its standard input read from `input` when given.
    func start(_ arguments: [String], input: URL? = nil) throws -> (Process, Pipe, Pipe) {
        #expect(FileManager.default.isExecutableFile(atPath: Self.binary.path), "oss binary at \(Self.binary.path)")
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.environment = environment
        if let input { process.standardInput = try FileHandle(forReadingFrom: input) }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return (process, out, err)
    }

    /// Runs `oss arguments...` to completion.
    func run(_ arguments: [String], input: URL? = nil) async throws -> Outcome {
        let (process, out, err) = try start(arguments, input: input)
        // Read both pipes concurrently so a chatty child never blocks on a full pipe. The reads block, so they run
        // on Dispatch threads, never on the small cooperative pool the in-process server needs.
        async let stdout = readToEnd(out)
        async let stderr = readToEnd(err)
        let (o, e) = await (stdout, stderr)
        await waitForExit(process)
        return Outcome(
            status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
            stderr: String(decoding: e, as: UTF8.self))
    }
}

/// Reads a pipe to its end on a Dispatch thread.
func readToEnd(_ pipe: Pipe) async -> Data {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(returning: pipe.fileHandleForReading.readDataToEndOfFile())
        }
    }
}

/// Waits for a child process without blocking a cooperative thread.
func waitForExit(_ process: Process) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
            process.waitUntilExit()
            continuation.resume()
        }
    }
}

func makeWorkDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("oss-tool-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Writes `count` pseudo-random bytes and returns their CRC-64.
func writeFile(_ url: URL, count: Int, seed: UInt64) throws -> UInt64 {
    var state = seed
    var bytes = [UInt8](repeating: 0, count: count)
    for i in 0..<count {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        bytes[i] = UInt8(truncatingIfNeeded: state >> 33)
    }
    try Data(bytes).write(to: url)
    return CRC64.checksum(bytes)
}

func crcOfFile(_ url: URL) throws -> UInt64 {
    CRC64.checksum([UInt8](try Data(contentsOf: url)))
}

/// Stores each of `keys` in `bucket` through the SDK: its own name as content, or `size` bytes of 7s.
func putObjects(_ keys: [String], bucket: String, server: LocalOSSServer, size: Int = 0) async throws {
    let client = try OSSClient(endpoint: server.endpoint, credentialProvider: server.credentials.provider)
    for key in keys {
        let data = size == 0 ? Data(key.utf8) : Data(repeating: 7, count: size)
        _ = try await client.putObject(OSSPutObjectRequest(bucketName: bucket, objectKey: key, data: data))
    }
    try await client.shutdown()
}
