import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// Runs the built `oss` executable as a child process, the way a user would.
struct ToolRunner {
    /// Beside the test bundle in the products directory (`start` says so when it is missing).
    static let binary: URL =
        builtExecutable("oss") ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("oss")

    var environment: [String: String]

    init(server: LocalOSSServer? = nil, home: URL) {
        var env = ProcessInfo.processInfo.environment
        for name in ["OSS_ACCESS_KEY_ID", "OSS_ACCESS_KEY_SECRET", "OSS_SESSION_TOKEN", "OSS_ENDPOINT", "OSS_REGION"] {
            env[name] = nil
        }
        // Nothing from the developer's own credentials chain, and never the ECS metadata service (loopback only).
        for name in env.keys where name.hasPrefix("ALIBABA_CLOUD_") { env[name] = nil }
        env["ALIBABA_CLOUD_ECS_METADATA_DISABLED"] = "true"
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

/// Writes `count` pseudo-random bytes and returns their CRC-64.
func writeFile(_ url: URL, count: Int, seed: UInt64) throws -> UInt64 {
    let bytes = patternBytes(count, seed: seed)
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
