import Foundation

/// Credentials from a profile of the Alibaba Cloud credentials file, as the Credentials libraries read it.
///
/// - The file: `ALIBABA_CLOUD_CREDENTIALS_FILE`, else `~/.alibabacloud/credentials.ini` (credentials-python's name),
///   else `~/.alibabacloud/credentials` (credentials-go's) when only that one exists; `~` is `HOME`.
/// - The profile: given, else `ALIBABA_CLOUD_PROFILE`, else `default`.
/// - The format: INI, `[profile]` sections of `key = value` (or `key: value`) lines, `#`/`;` comment lines, text
///   after `#` in a value dropped, `[DEFAULT]` values inherited by every section, keys case-insensitive.
/// - The profile's `type`: `access_key` (`access_key_id`, `access_key_secret`), `ecs_ram_role` (`role_name`,
///   optional: asked of the metadata service, ``OSSECSRAMRoleCredentialProvider``), `ram_role_arn` (`access_key_id`,
///   `access_key_secret`, `role_arn`, optional `role_session_name`, `policy`: ``OSSRAMRoleCredentialProvider``) and
///   `oidc_role_arn` (`role_arn`, `oidc_provider_arn`, `oidc_token_file_path`, optional `role_session_name`,
///   `policy`: ``OSSOIDCRoleCredentialProvider``; a setting left out is read from its environment variable, as in
///   the libraries). `rsa_key_pair` (a retired STS call) is refused by name.
///
/// The file is read on the first request; the provider it describes then answers every later one (as the libraries
/// do). Every failure is an ``OSSClientError`` `signFailed` that names the file and the profile, never a secret.
public final class OSSProfileCredentialProvider: OSSCredentialProvider, OSSProfileBackedProvider, CustomStringConvertible {
    /// The file read.
    public let path: String
    /// The profile used.
    public let profileName: String
    private let metadataEndpoint: URL
    private let stsEndpoint: String?
    private let environment: [String: String]
    let resolved = OSSLockedValue<(any OSSCredentialProvider)?>(nil)

    /// - Parameters:
    ///   - profileName: the profile; `nil` reads `ALIBABA_CLOUD_PROFILE`, else `default`.
    ///   - path: the file; `nil` reads `ALIBABA_CLOUD_CREDENTIALS_FILE`, else the default locations above.
    ///   - metadataEndpoint: the metadata service an `ecs_ram_role` profile asks (another address only for tests).
    ///   - stsEndpoint: the STS endpoint of `ram_role_arn` and `oidc_role_arn` profiles (host or URL); `nil`: as
    ///     ``OSSRAMRoleCredentialProvider`` chooses it.
    ///   - environment: where the variables (and `HOME`) are read.
    public init(
        profileName: String? = nil, path: String? = nil,
        metadataEndpoint: URL = OSSECSRAMRoleCredentialProvider.defaultMetadataEndpoint, stsEndpoint: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.profileName = profileName ?? environment.nonEmpty("ALIBABA_CLOUD_PROFILE") ?? "default"
        if let path = path ?? environment.nonEmpty("ALIBABA_CLOUD_CREDENTIALS_FILE") {
            self.path = path
        } else {
            let directory = OSSProfileFile.home(environment) + "/.alibabacloud/"
            let python = directory + "credentials.ini"
            let go = directory + "credentials"
            self.path =
                !FileManager.default.fileExists(atPath: python) && FileManager.default.fileExists(atPath: go)
                ? go : python
        }
        self.metadataEndpoint = metadataEndpoint
        self.stsEndpoint = stsEndpoint
        self.environment = environment
    }

    public func credentials() async throws -> OSSCredentials {
        try await resolvedProvider().credentials()
    }

    public var description: String {
        "OSSProfileCredentialProvider(profile: \(profileName), file: \(path))"
    }

    private var name: String { "profile \(profileName) of the credentials file \(path)" }

    func resolve() throws -> any OSSCredentialProvider {
        let text = try OSSProfileFile.read(path, what: "the credentials file")
        let sections: [String: [String: String]]
        do {
            sections = try INI.parse(text)
        } catch let error as INI.Malformed {
            throw OSSClientError(.signFailed, "the credentials file \(path) is not valid INI: \(error.reason)")
        }
        guard let section = sections[profileName] else {
            throw OSSClientError(
                .signFailed,
                "the credentials file \(path) has no profile \(profileName) (it has: "
                    + "\(sections.keys.sorted().joined(separator: ", ")))")
        }
        /// The profile's provider; its refusal of the settings becomes `signFailed` naming the profile.
        func described(_ make: () throws -> any OSSCredentialProvider) throws -> any OSSCredentialProvider {
            do {
                return try make()
            } catch let error as OSSClientError {
                throw OSSClientError(.signFailed, "\(name): \(error.message)")
            }
        }
        func value(_ key: String) throws -> String {
            guard let value = section[key], !value.isEmpty else {
                throw OSSClientError(.signFailed, "\(name) lacks \(key)")
            }
            return value
        }
        switch section["type"] {
        case "access_key":
            return OSSStaticCredentialProvider(
                accessKeyId: try value("access_key_id"), accessKeySecret: try value("access_key_secret"))
        case "ecs_ram_role":
            return try described {
                try OSSECSRAMRoleCredentialProvider(
                    roleName: section["role_name"].flatMap { $0.isEmpty ? nil : $0 },
                    metadataEndpoint: metadataEndpoint, environment: environment)
            }
        case "ram_role_arn":
            let user = OSSStaticCredentialProvider(
                accessKeyId: try value("access_key_id"), accessKeySecret: try value("access_key_secret"))
            return try described {
                try OSSRAMRoleCredentialProvider(
                    source: user, roleArn: section["role_arn"], roleSessionName: section["role_session_name"],
                    policy: section["policy"], stsEndpoint: stsEndpoint, environment: environment)
            }
        case "oidc_role_arn":
            return try described {
                try OSSOIDCRoleCredentialProvider(
                    roleArn: section["role_arn"], oidcProviderArn: section["oidc_provider_arn"],
                    oidcTokenFile: section["oidc_token_file_path"], roleSessionName: section["role_session_name"],
                    policy: section["policy"], stsEndpoint: stsEndpoint, environment: environment)
            }
        case "rsa_key_pair":
            throw OSSClientError(.signFailed, "\(name) has type rsa_key_pair, which this SDK does not support")
        case let type?:
            throw OSSClientError(.signFailed, "\(name) has an unknown type \(type)")
        case nil:
            throw OSSClientError(.signFailed, "\(name) has no type")
        }
    }
}

/// A provider a profile file describes (the credentials file's or the `aliyun` CLI's): the file is read on the first
/// request and the provider it describes answers every later one.
protocol OSSProfileBackedProvider: OSSRefreshBackedCredentialProvider {
    /// The provider the profile described, once read.
    var resolved: OSSLockedValue<(any OSSCredentialProvider)?> { get }
    /// Reads the file and builds the provider its profile describes.
    func resolve() throws -> any OSSCredentialProvider
}

extension OSSProfileBackedProvider {
    func signingCredentials() async throws -> OSSSigningCredentials {
        try await OSSSigningCredentials.of(resolvedProvider())
    }

    /// The provider the profile describes, read from the file the first time (the first of two racing reads wins).
    func resolvedProvider() throws -> any OSSCredentialProvider {
        if let provider = resolved.withLockedValue({ $0 }) { return provider }
        let provider = try resolve()
        return resolved.withLockedValue { resolved in
            if let earlier = resolved { return earlier }
            resolved = provider
            return provider
        }
    }
}

/// Where the profile files are and how they are read.
enum OSSProfileFile {
    /// `HOME` (as the libraries), else the user's home directory.
    static func home(_ environment: [String: String]) -> String {
        environment.nonEmpty("HOME") ?? NSHomeDirectory()
    }

    /// The file's text; a missing, unreadable or non-UTF-8 file is a `signFailed` error naming `what`.
    static func read(_ path: String, what: String) throws -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw OSSClientError(.signFailed, "\(what) \(path) does not exist")
        }
        guard !isDirectory.boolValue else {
            throw OSSClientError(.signFailed, "\(what) \(path) is a directory")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw OSSClientError(.signFailed, "\(what) \(path) cannot be read", underlying: error)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw OSSClientError(.signFailed, "\(what) \(path) is not UTF-8 text")
        }
        return text
    }
}

extension [String: String] {
    /// The variable's value, `nil` when it is unset or empty.
    func nonEmpty(_ name: String) -> String? {
        guard let value = self[name], !value.isEmpty else { return nil }
        return value
    }
}

/// The INI dialect of the credentials file, as Python's `configparser` reads it (credentials-python's judge).
enum INI {
    struct Malformed: Error {
        let reason: String
    }

    /// The sections by name, each its keys (lowercased) and values, `[DEFAULT]` merged into the others.
    static func parse(_ text: String) throws -> [String: [String: String]] {
        var sections: [String: [String: String]] = [:]
        var order: [String] = []
        var current: String?
        var lastKey: String?
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated()
        {
            let number = index + 1
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if rawLine.first?.isWhitespace == true, let section = current, let key = lastKey {
                // An indented line continues the previous value.
                sections[section]?[key, default: ""] += "\n" + line
                continue
            }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    throw Malformed(reason: "line \(number) is an unclosed section header")
                }
                let name = String(line.dropFirst().dropLast())
                guard sections[name] == nil else { throw Malformed(reason: "section [\(name)] appears twice") }
                sections[name] = [:]
                order.append(name)
                current = name
                lastKey = nil
                continue
            }
            guard let section = current else {
                throw Malformed(reason: "line \(number) comes before any [section]")
            }
            guard let separator = line.firstIndex(where: { $0 == "=" || $0 == ":" }) else {
                throw Malformed(reason: "line \(number) of [\(section)] is neither key = value nor a comment")
            }
            let key = line[..<separator].trimmingCharacters(in: .whitespaces).lowercased()
            guard !key.isEmpty else { throw Malformed(reason: "line \(number) of [\(section)] has no key") }
            guard sections[section]?[key] == nil else {
                throw Malformed(reason: "key \(key) appears twice in [\(section)]")
            }
            sections[section]?[key] = String(line[line.index(after: separator)...])
            lastKey = key
        }
        // A `#` in a value starts a comment (credentials-python drops it); values are trimmed.
        let cleaned = sections.mapValues { values in
            values.mapValues { value in
                String(value.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        let defaults = cleaned["DEFAULT"] ?? [:]
        var result: [String: [String: String]] = [:]
        for name in order where name != "DEFAULT" {
            result[name] = defaults.merging(cleaned[name] ?? [:]) { _, own in own }
        }
        return result
    }
}
