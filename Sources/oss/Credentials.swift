import AliyunOSS
import ArgumentParser

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `oss config`: the profiles of the `aliyun` CLI's configuration file, which `--profile` and the default chain read
/// through the SDK's ``OSSCLIProfileCredentialProvider``.
struct Config: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Write, list and choose profiles in the aliyun CLI's configuration (~/.aliyun/config.json).",
        discussion: helpProse("""
            The file is $ALIBABA_CLOUD_CONFIG_FILE, else ~/.aliyun/config.json: the aliyun CLI's own file, which the
            Alibaba Cloud Credentials libraries and every oss command read too (oss ls --profile NAME; with no
            --profile and no OSS_ACCESS_KEY_ID, the default chain reads its current profile). oss config changes only
            the fields it is told to and keeps every other one; the file is written with permissions 0600.
            """),
        subcommands: [ConfigSet.self, ConfigList.self, ConfigUse.self])
}

/// The modes `oss config set` writes, with the fields each needs (the others are optional).
enum ProfileMode: String, CaseIterable, ExpressibleByArgument {
    case ak = "AK"
    case stsToken = "StsToken"
    case ramRoleArn = "RamRoleArn"
    case chainableRamRoleArn = "ChainableRamRoleArn"
    case ecsRamRole = "EcsRamRole"
    case oidc = "OIDC"
    case external = "External"

    /// The fields (config.json names) the mode cannot do without.
    var requiredFields: [String] {
        switch self {
        case .ak: ["access_key_id", "access_key_secret"]
        case .stsToken: ["access_key_id", "access_key_secret", "sts_token"]
        case .ramRoleArn: ["access_key_id", "access_key_secret", "ram_role_arn"]
        case .chainableRamRoleArn: ["source_profile", "ram_role_arn"]
        case .ecsRamRole: []
        case .oidc: ["ram_role_arn", "oidc_provider_arn", "oidc_token_file"]
        case .external: ["process_command"]
        }
    }

    /// Whether the mode signs with a secret of its own (read from standard input, never an argument).
    var takesSecret: Bool { requiredFields.contains("access_key_secret") }
}

struct ConfigSet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Create or change a profile.",
        discussion: helpProse("""
            The access key secret (AK, StsToken, RamRoleArn) and then the STS token (StsToken) are read from standard
            input, one line each (asked for without echo on a terminal), never from an argument, so they stay out of
            shell history: printf '%s\\n' "$SECRET" | oss config set --profile dev --access-key-id LTAI...
            A profile that does not exist is created; the file's current profile is set only when it has none
            (oss config use NAME changes it). Changing a profile's mode drops the secret and token it no longer uses.
            """))

    @Option(help: "The profile (default: the file's current profile, else default).") var profile: String?
    @Option(help: "How the profile signs (default: AK, or the profile's mode now).")
    var mode: ProfileMode?
    @Option(help: "The access key id (AK, StsToken, RamRoleArn).") var accessKeyId: String?
    @Option(help: "The RAM role to assume (RamRoleArn, ChainableRamRoleArn, OIDC).") var ramRoleArn: String?
    @Option(help: "The role session name (RamRoleArn, ChainableRamRoleArn, OIDC).") var roleSessionName: String?
    @Option(help: "The external id the role requires (RamRoleArn, ChainableRamRoleArn).") var externalId: String?
    @Option(help: "The profile whose credentials assume the role (ChainableRamRoleArn).") var sourceProfile: String?
    @Option(help: "The instance's RAM role (EcsRamRole; default: the one the metadata service names).") var ramRoleName: String?
    @Option(help: "The OIDC provider's ARN (OIDC).") var oidcProviderArn: String?
    @Option(help: "The file holding the OIDC token, read again at each refresh (OIDC).") var oidcTokenFile: String?
    @Option(help: "The command that prints credentials as JSON (External).") var processCommand: String?
    @Option(help: "Seconds the assumed role's credentials last (RamRoleArn, ChainableRamRoleArn, OIDC; default 3600).")
    var expiredSeconds: Int?
    @Option(help: "The STS region of the role modes, e.g. cn-hangzhou.") var stsRegion: String?
    @Option(help: "The profile's region id, e.g. cn-hangzhou.") var region: String?

    func run() async throws {
        try await runCommand {
            var document = try CLIConfigDocument.load()
            let name = profile ?? document.current ?? "default"
            guard !name.isEmpty else { throw CLIFailure(.clientError, "--profile needs a profile name") }
            var fields = document.profile(named: name) ?? ["name": name]
            let previous = (fields["mode"] as? String).flatMap(ProfileMode.init(rawValue:))
            let mode = mode ?? previous ?? .ak
            if let previous, previous != mode {
                // A secret the new mode does not sign with is not left behind in the file.
                for field in ["access_key_secret", "sts_token"] where !mode.requiredFields.contains(field) {
                    fields[field] = nil
                }
            }
            fields["mode"] = mode.rawValue
            let sessionField = mode == .oidc ? "role_session_name" : "ram_session_name"
            let given: [(String, String?)] = [
                ("access_key_id", accessKeyId), ("ram_role_arn", ramRoleArn), (sessionField, roleSessionName),
                ("external_id", externalId), ("source_profile", sourceProfile), ("ram_role_name", ramRoleName),
                ("oidc_provider_arn", oidcProviderArn), ("oidc_token_file", oidcTokenFile),
                ("process_command", processCommand), ("sts_region", stsRegion), ("region_id", region),
            ]
            for case let (field, value?) in given { fields[field] = value }
            if let expiredSeconds {
                guard (900...43_200).contains(expiredSeconds) else {
                    throw CLIFailure(.clientError, "--expired-seconds needs 900 to 43200 seconds, not \(expiredSeconds)")
                }
                fields["expired_seconds"] = expiredSeconds
            }
            if mode.takesSecret {
                fields["access_key_secret"] = try readSecret("access key secret")
            }
            if mode == .stsToken {
                fields["sts_token"] = try readSecret("STS token")
            }
            let missing = mode.requiredFields.filter { ((fields[$0] as? String) ?? "").isEmpty }
            guard missing.isEmpty else {
                let flags = missing.map { "--" + $0.replacingOccurrences(of: "_", with: "-") }
                throw CLIFailure(.clientError, "profile \(name) of mode \(mode.rawValue) needs \(flags.joined(separator: ", "))")
            }
            document.put(fields)
            if (document.current ?? "").isEmpty { document.current = name }
            try document.write()
            say("profile \(name) (\(mode.rawValue)) written to \(document.path)\(document.current == name ? " (current)" : "")")
        }
    }

    /// One line of standard input, without echo when it is a terminal; empty is an error.
    private func readSecret(_ what: String) throws -> String {
        var line: String?
        if isatty(STDIN_FILENO) == 1 {
            line = getpass("\(what): ").map { String(cString: $0) }
        } else {
            line = readLine(strippingNewline: true)
        }
        guard let value = line?.trimmingCharacters(in: .whitespaces), !value.isEmpty else {
            throw CLIFailure(.clientError, "no \(what) on standard input (one line each: the secret, then the STS token)")
        }
        return value
    }
}

struct ConfigList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the profiles: name (* the current one), mode, masked access key id or role, region.")

    func run() async throws {
        try await runCommand {
            let document = try CLIConfigDocument.load()
            guard document.exists else { throw CLIFailure(.clientError, "no configuration at \(document.path): oss config set writes one") }
            say("# \(document.path)")
            for profile in document.profiles {
                let name = profile["name"] as? String ?? ""
                let mode = profile["mode"] as? String ?? "-"
                let identity: String
                switch mode {
                case "EcsRamRole": identity = (profile["ram_role_name"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? "(discovered)"
                case "OIDC", "ChainableRamRoleArn": identity = profile["ram_role_arn"] as? String ?? "-"
                case "External": identity = "(process)"
                default: identity = maskedKeyId(profile["access_key_id"] as? String ?? "")
                }
                let current = name == document.current ? " *" : ""
                let region = (profile["region_id"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? "-"
                say([name + current, mode, identity, region].joined(separator: "\t"))
            }
        }
    }
}

struct ConfigUse: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "use", abstract: "Make a profile the current one (what the default chain reads).")

    @Argument(help: "The profile.") var profile: String

    func run() async throws {
        try await runCommand {
            var document = try CLIConfigDocument.load()
            guard document.profile(named: profile) != nil else {
                throw CLIFailure(.clientError, "\(document.path) has no profile \(profile)")
            }
            document.current = profile
            try document.write()
            say("current profile: \(profile)")
        }
    }
}

/// `oss whoami`: which provider answers and with what, never the secret or the token.
struct Whoami: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show where the credentials come from: the provider, the access key id (masked), when they expire.",
        discussion: helpProse("""
            The credentials are resolved as every other command resolves them (--profile, else OSS_ACCESS_KEY_ID,
            else the default chain), without a request to OSS. The access key id is shown as the aliyun CLI shows
            it (***abc: its last three characters); the secret and the security token never are.
            """))

    @OptionGroup var credentials: CredentialOptions

    func run() async throws {
        try await runCommand {
            let source = try credentials.source()
            let current: (credentials: OSSCredentials, expiration: Date?)
            do {
                current = try await OSSSigningCredentials.current(of: source.provider)
            } catch {
                throw CLIFailure(error)
            }
            say("provider:       \(Self.describe(source))")
            say("access key id:  \(maskedKeyId(current.credentials.accessKeyId))")
            say("security token: \(current.credentials.securityToken == nil ? "none" : "yes (temporary credentials)")")
            say("expires:        \(Self.describe(expiration: current.expiration, temporary: current.credentials.securityToken != nil))")
        }
    }

    static func describe(_ source: CredentialOptions.Source) -> String {
        switch source {
        case .profile(let provider):
            return describe(profile: provider)
        case .environment(let provider):
            return "environment (\(provider.variables.accessKeyId))"
        case .defaultChain(let chain):
            let step = chain.answeredBy ?? "none"
            if let profile = chain.answeringProvider as? OSSCLIProfileCredentialProvider {
                return "default chain: \(describe(profile: profile))"
            }
            return "default chain: \(step)"
        }
    }

    static func describe(profile provider: OSSCLIProfileCredentialProvider) -> String {
        let answered = provider.answeringProfile
        let name = answered?.name ?? provider.profileName ?? "current"
        return "aliyun CLI profile \(name)\(answered.map { " (\($0.mode))" } ?? "") in \(provider.path)"
    }

    static func describe(expiration: Date?, temporary: Bool) -> String {
        guard let expiration else {
            return temporary ? "not known (fixed temporary credentials: they end when STS said they would)" : "never (a long-term access key)"
        }
        let minutes = Int(expiration.timeIntervalSinceNow / 60)
        return OSSDateFormat.iso8601Milliseconds(expiration) + (minutes >= 0 ? " (in \(minutes) min; refreshed before then)" : " (expired)")
    }
}

/// An access key id as the aliyun CLI's `configure list` shows it: `***` and its last three characters.
func maskedKeyId(_ id: String) -> String {
    "***" + id.suffix(3)
}

/// The aliyun CLI's configuration file as JSON, every field kept as it was (the CLI's own, and any it adds later),
/// so that `oss config` changes only what it is told to. Credentials are never resolved from it here: that is the
/// SDK's ``OSSCLIProfileCredentialProvider``, which also names the file.
struct CLIConfigDocument {
    let path: String
    let exists: Bool
    private var root: [String: Any]

    /// The file the SDK reads (`ALIBABA_CLOUD_CONFIG_FILE`, else `~/.aliyun/config.json`); a missing file is empty.
    static func load() throws -> CLIConfigDocument {
        var environment = ProcessInfo.processInfo.environment
        environment["ALIBABA_CLOUD_CLI_PROFILE_DISABLED"] = nil
        let path: String
        do {
            path = try OSSCLIProfileCredentialProvider(environment: environment).path
        } catch {
            throw CLIFailure(error)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) { throw CLIFailure(.clientError, "cannot read \(path)") }
            return CLIConfigDocument(path: path, exists: false, root: ["current": "", "profiles": [Any]()])
        }
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            root["profiles"] == nil || root["profiles"] is [[String: Any]]
        else {
            throw CLIFailure(.clientError, "\(path) is not the aliyun CLI's JSON configuration: left as it is")
        }
        return CLIConfigDocument(path: path, exists: true, root: root)
    }

    private init(path: String, exists: Bool, root: [String: Any]) {
        self.path = path
        self.exists = exists
        self.root = root
    }

    var current: String? {
        get { root["current"] as? String }
        set { root["current"] = newValue }
    }

    var profiles: [[String: Any]] { root["profiles"] as? [[String: Any]] ?? [] }

    func profile(named name: String) -> [String: Any]? {
        profiles.first { $0["name"] as? String == name }
    }

    /// Replaces the profile of the same name, or adds it.
    mutating func put(_ profile: [String: Any]) {
        var all = profiles
        if let index = all.firstIndex(where: { $0["name"] as? String == profile["name"] as? String }) {
            all[index] = profile
        } else {
            all.append(profile)
        }
        root["profiles"] = all
    }

    /// Writes the file whole (a temporary file renamed over it), readable by its owner only.
    func write() throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let data = try JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys])
            let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString)")
            guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw CLIFailure(.clientError, "cannot write \(temporary.path)")
            }
            if rename(temporary.path, path) != 0 {
                let code = errno
                try? FileManager.default.removeItem(at: temporary)
                throw CLIFailure(.clientError, "cannot write \(path) (\(describeErrno(code)))")
            }
        } catch let failure as CLIFailure {
            throw failure
        } catch {
            throw CLIFailure(.clientError, "cannot write \(path) (\(error.localizedDescription))")
        }
    }
}
