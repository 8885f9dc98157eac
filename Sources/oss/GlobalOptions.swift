import AliyunOSS
import ArgumentParser

import Foundation

/// Where a command's credentials come from: `--profile NAME` (the `aliyun` CLI's configuration, as `oss config`
/// writes it), else OSS_ACCESS_KEY_ID / OSS_ACCESS_KEY_SECRET / OSS_SESSION_TOKEN when set, else the SDK's default
/// chain. A secret is never an argument, so it never lands in shell history.
struct CredentialOptions: ParsableArguments {
    @Option(help: "A profile of the aliyun CLI's configuration (~/.aliyun/config.json, or $ALIBABA_CLOUD_CONFIG_FILE; oss config writes it) to sign with (default: OSS_ACCESS_KEY_ID and OSS_ACCESS_KEY_SECRET when set, else the default credentials chain).")
    var profile: String?

    @Option(help: "The STS endpoint that role and OIDC profiles call (default: $OSS_STS_ENDPOINT, else from the profile's sts_region).")
    var stsEndpoint: String?

    /// What answers, as `oss whoami` names it when nothing has been asked yet.
    enum Source {
        case profile(OSSCLIProfileCredentialProvider)
        case environment(OSSEnvironmentCredentialProvider)
        case defaultChain(OSSDefaultCredentialProvider)

        var provider: any OSSCredentialProvider {
            switch self {
            case .profile(let provider): provider
            case .environment(let provider): provider
            case .defaultChain(let provider): provider
            }
        }
    }

    func source() throws -> Source {
        let environment = ProcessInfo.processInfo.environment
        let sts = [stsEndpoint, environment["OSS_STS_ENDPOINT"]].compactMap { $0 }.first { !$0.isEmpty }
        if let profile {
            guard !profile.isEmpty else { throw CLIFailure(.clientError, "--profile needs a profile name") }
            do {
                return .profile(try OSSCLIProfileCredentialProvider(profileName: profile, stsEndpoint: sts))
            } catch {
                throw CLIFailure(error)
            }
        }
        let variables = OSSEnvironmentCredentialProvider.Variables.oss
        if [variables.accessKeyId, variables.accessKeySecret].contains(where: { environment[$0]?.isEmpty == false }) {
            return .environment(OSSEnvironmentCredentialProvider(variables: variables))
        }
        return .defaultChain(OSSDefaultCredentialProvider(stsEndpoint: sts))
    }
}

/// Options shared by the commands that talk to OSS; the credentials as ``CredentialOptions`` chooses them.
struct ConnectionOptions: ParsableArguments {
    @OptionGroup var credentials: CredentialOptions

    @Option(help: "The OSS endpoint, e.g. https://oss-cn-hangzhou.aliyuncs.com (default: $OSS_ENDPOINT).")
    var endpoint: String?

    @Option(help: "The region id for V4 signing, e.g. cn-hangzhou (default: $OSS_REGION).")
    var region: String?

    @Option(help: "Signature version: v1 or v4 (default: v4 when a region is known, else v1).")
    var signatureVersion: String?

    @Flag(help: "Use path-style addressing (bucket in the path, not the host).")
    var pathStyle = false

    @Option(help: "HTTP stack: urlsession or asynchttpclient (default: $OSS_TRANSPORT, else URLSession on Apple platforms and AsyncHTTPClient on Linux).")
    var transport: String?

    @Option(help: "Seconds without a byte moving after which a data request is abandoned and retried (default 5; 0 turns stall detection off).")
    var stallTimeout: Double?

    @Flag(help: "Print a timeline of the requests on standard error as they end: each operation, its attempts and each resumable transfer, with status, retries and duration.")
    var trace = false

    func makeClient(configure: (inout OSSClientConfiguration) -> Void = { _ in }) throws -> OSSClient {
        let environment = ProcessInfo.processInfo.environment
        guard let endpoint = endpoint ?? environment["OSS_ENDPOINT"], !endpoint.isEmpty else {
            throw CLIFailure(.clientError, "no endpoint: pass --endpoint URL or set OSS_ENDPOINT")
        }
        let provider = try credentials.source().provider
        let region = region ?? environment["OSS_REGION"]
        let version: OSSSignatureVersion
        switch signatureVersion?.lowercased() {
        case nil: version = (region?.isEmpty == false) ? .v4 : .v1
        case "v1": version = .v1
        case "v4": version = .v4
        case let other?: throw CLIFailure(.clientError, "unknown signature version \(other): use v1 or v4")
        }
        var configuration = OSSClientConfiguration(region: region, signatureVersion: version)
        if pathStyle { configuration.addressing = .pathStyle }
        configuration.transport = try transportKind(transport)
        if let stallTimeout {
            guard stallTimeout >= 0, stallTimeout <= 86_400 else {
                throw CLIFailure(.clientError, "--stall-timeout needs a number of seconds from 0 to 86400, not \(stallTimeout)")
            }
            configuration.timeouts.stall = stallTimeout == 0 ? nil : .milliseconds(Int64(stallTimeout * 1000))
        }
        if trace { configuration.printTimeline() }
        configure(&configuration)
        do {
            return try OSSClient(
                endpoint: endpoint, credentialProvider: provider, configuration: configuration)
        } catch {
            throw CLIFailure(error)
        }
    }
}

/// Runs `body` with a client and shuts the client down afterwards, mapping every error to a ``CLIFailure``.
func withClient<T: Sendable>(_ options: ConnectionOptions, _ body: (OSSClient) async throws -> T) async throws -> T {
    let client = try options.makeClient()
    do {
        let result = try await body(client)
        try? await client.shutdown()
        return result
    } catch {
        try? await client.shutdown()
        throw CLIFailure(error)
    }
}

func parseRemote(_ text: String, requireKey: Bool) throws -> OSSURI {
    guard let uri = OSSURI(text) else {
        throw CLIFailure(.clientError, "not an OSS URL: \(text) (expected oss://bucket\(requireKey ? "/key" : "[/prefix]"))")
    }
    if requireKey && uri.key.isEmpty {
        throw CLIFailure(.clientError, "\(text) names no object: expected oss://bucket/key")
    }
    return uri
}

/// Prints a line to standard output at once (unbuffered, so it interleaves correctly with progress on standard error).
func say(_ text: String) {
    StandardStreams.writeOutput(Data((text + "\n").utf8))
}

/// Prints a line to standard error.
func printError(_ text: String) {
    StandardStreams.writeError(Data((text + "\n").utf8))
}

/// `1.5 MiB`-style sizes.
func formatBytes(_ value: Int64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"]
    var v = Double(value)
    var unit = 0
    while v >= 1024 && unit < units.count - 1 {
        v /= 1024
        unit += 1
    }
    return unit == 0 ? "\(value) B" : String(format: "%.1f", v) + " " + units[unit]
}

/// The transport named by `option`, else by `OSS_TRANSPORT`, else the platform's default.
func transportKind(_ option: String?) throws -> OSSTransportKind {
    guard let name = option ?? ProcessInfo.processInfo.environment["OSS_TRANSPORT"], !name.isEmpty else {
        return .automatic
    }
    guard let kind = OSSTransportKind(name: name) else {
        let known = OSSTransportKind.allCases.filter { $0 != .automatic }.map(\.rawValue).joined(separator: ", ")
        throw CLIFailure(.clientError, "unknown transport \(name): use one of \(known)")
    }
    return kind
}
