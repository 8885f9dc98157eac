import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// The credentials file (`OSSProfileCredentialProvider`), the `aliyun` CLI's configuration
/// (`OSSCLIProfileCredentialProvider`) and the libraries' environment variables, read from real files in a temporary
/// home; uploads signed with what they yield; the official credentials-python resolving the same files alike.
@Suite("Profile credentials")
struct ProfileProviderTests {
    @Test("the credentials file: the profile from ALIBABA_CLOUD_PROFILE or default, INI comments, an upload signed with it")
    func credentialsFileUpload() async throws {
        let home = try CredentialHome()
        defer { home.cleanup() }
        let chosen = OSSProfileCredentialProvider(environment: home.environment(["ALIBABA_CLOUD_PROFILE": "prod"]))
        let fallback = OSSProfileCredentialProvider(environment: home.environment())
        #expect(chosen.profileName == "prod" && fallback.profileName == "default")
        #expect(chosen.path == home.root.path + "/.alibabacloud/credentials.ini")
        try await withTMServer { server, _ in
            try home.writeCredentialsFile(
                """
                # written by hand
                [default]
                type = access_key
                access_key_id = AKDefaultOnly
                access_key_secret = unused

                [prod]
                type = access_key          # the production key
                Access_Key_Id = \(server.credentials.accessKeyId)
                access_key_secret: \(server.credentials.accessKeySecret)
                """)
            #expect(try await fallback.credentials().accessKeyId == "AKDefaultOnly")
            try await uploadResumably(server, signedBy: chosen, key: "profile.bin")
        }
        #expect(!"\(chosen)".contains("unused"))
    }

    @Test("ALIBABA_CLOUD_CREDENTIALS_FILE, credentials-go's ~/.alibabacloud/credentials, an ecs_ram_role profile")
    func otherLocationsAndTheECSType() async throws {
        let home = try CredentialHome()
        defer { home.cleanup() }
        let goPath = try home.write("[default]\ntype = access_key\naccess_key_id = AKGo\naccess_key_secret = s\n",
            to: ".alibabacloud/credentials")
        #expect(OSSProfileCredentialProvider(environment: home.environment()).path == goPath)
        #expect(try await OSSProfileCredentialProvider(environment: home.environment()).credentials().accessKeyId == "AKGo")
        let box = TMServerBox()
        let metadata = try await LocalECSMetadataService.start(roleName: "app-role") {
            box.server?.issueTemporaryCredentials(lifetime: .seconds(3600))
        }
        defer { Task { try? await metadata.shutdown() } }
        let elsewhere = try home.write(
            "[instance]\ntype = ecs_ram_role\nrole_name = app-role\n", to: "elsewhere/creds.ini")
        let provider = OSSProfileCredentialProvider(
            metadataEndpoint: metadata.url,
            environment: ["HOME": home.root.path, "ALIBABA_CLOUD_CREDENTIALS_FILE": elsewhere, "ALIBABA_CLOUD_PROFILE": "instance"])
        try await withTMServer(provider: provider) { server, client in
            box.set(server)
            try await uploadResumably(client, key: "profile-ecs.bin")
        }
        #expect(metadata.stats.credentialRequests == 1)
    }

    @Test("the credentials file's bad input: each a signFailed error naming the file and the profile, no secret")
    func credentialsFileErrors() async throws {
        let home = try CredentialHome()
        defer { home.cleanup() }
        func error(_ text: String?, profile: String = "default") async throws -> OSSClientError? {
            let path = home.root.appendingPathComponent("case-\(UUID().uuidString).ini").path
            if let text { try Data(text.utf8).write(to: URL(fileURLWithPath: path)) }
            let provider = OSSProfileCredentialProvider(profileName: profile, path: path, environment: home.environment())
            let error = await thrownClientError { _ = try await provider.credentials() }
            #expect(error?.code == .signFailed)
            #expect(error?.message.contains(path) == true, "\(String(describing: error))")
            #expect(error?.message.contains("TopSecret") == false)
            return error
        }
        #expect(try await error(nil)?.message.contains("does not exist") == true)
        #expect(try await error("access_key_id = AK\n")?.message.contains("before any [section]") == true)
        #expect(try await error("[default\ntype = access_key\n")?.message.contains("unclosed section") == true)
        #expect(try await error("[default]\njust words\n")?.message.contains("neither key = value") == true)
        #expect(try await error("[default]\ntype = access_key\n[default]\n")?.message.contains("twice") == true)
        let other = "[other]\ntype = access_key\naccess_key_id = AK\naccess_key_secret = TopSecret\n"
        #expect(try await error(other)?.message.contains("no profile default (it has: other)") == true)
        let missing = "[default]\ntype = access_key\naccess_key_id = AK\n"
        #expect(try await error(missing)?.message.contains("lacks access_key_secret") == true)
        let later = "[default]\ntype = ram_role_arn\naccess_key_id = AK\naccess_key_secret = TopSecret\n"
        #expect(try await error(later)?.message.contains("needs a role ARN (or ALIBABA_CLOUD_ROLE_ARN)") == true)
        #expect(try await error("[default]\ntype = rsa_key_pair\n")?.message.contains("rsa_key_pair, which this SDK does not support") == true)
        #expect(try await error("[default]\ntype = magic\n")?.message.contains("unknown type magic") == true)
        try FileManager.default.createDirectory(
            at: home.root.appendingPathComponent("dir.ini"), withIntermediateDirectories: true)
        let directory = OSSProfileCredentialProvider(
            path: home.root.appendingPathComponent("dir.ini").path, environment: home.environment())
        let isDirectory = await thrownClientError { _ = try await directory.credentials() }
        #expect(isDirectory?.message.contains("is a directory") == true)
        if getuid() != 0 {
            let locked = try home.write(other, to: "locked.ini")
            try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked)
            let unreadable = OSSProfileCredentialProvider(profileName: "other", path: locked, environment: home.environment())
            let denied = await thrownClientError { _ = try await unreadable.credentials() }
            #expect(denied?.message.contains("cannot be read") == true, "\(String(describing: denied))")
        }
    }

    @Test("the aliyun CLI config: current or ALIBABA_CLOUD_PROFILE, AK and StsToken profiles sign uploads")
    func cliConfigUploads() async throws {
        let home = try CredentialHome()
        defer { home.cleanup() }
        try await withTMServer { server, _ in
            let sts = server.issueTemporaryCredentials(lifetime: .seconds(3600))
            try home.writeCLIConfig(
                current: "dev",
                [
                    ["name": "dev", "mode": "AK", "access_key_id": server.credentials.accessKeyId,
                     "access_key_secret": server.credentials.accessKeySecret, "region_id": "cn-hangzhou"],
                    ["name": "temp", "mode": "StsToken", "access_key_id": sts.accessKeyId,
                     "access_key_secret": sts.accessKeySecret, "sts_token": sts.securityToken],
                ])
            let current = try OSSCLIProfileCredentialProvider(environment: home.environment())
            let chosen = try OSSCLIProfileCredentialProvider(environment: home.environment(["ALIBABA_CLOUD_PROFILE": "temp"]))
            #expect(current.profileName == nil && chosen.profileName == "temp")
            for (provider, key) in [(current, "cli-ak.bin"), (chosen, "cli-sts.bin")] {
                try await uploadResumably(server, signedBy: provider, key: key)
            }
            #expect(try await chosen.credentials().securityToken == sts.securityToken)
        }
    }

    @Test("the aliyun CLI config's bad input: malformed JSON, no profiles, unknown profile or mode, modes for later")
    func cliConfigErrors() async throws {
        let home = try CredentialHome()
        defer { home.cleanup() }
        func error(_ text: String?, profile: String? = nil) async throws -> OSSClientError? {
            let path = home.root.appendingPathComponent("config-\(UUID().uuidString).json").path
            if let text { try Data(text.utf8).write(to: URL(fileURLWithPath: path)) }
            let provider = try OSSCLIProfileCredentialProvider(profileName: profile, path: path, environment: home.environment())
            let error = await thrownClientError { _ = try await provider.credentials() }
            #expect(error?.code == .signFailed)
            #expect(error?.message.contains(path) == true, "\(String(describing: error))")
            #expect(error?.message.contains("TopSecret") == false)
            return error
        }
        #expect(try await error(nil)?.message.contains("does not exist") == true)
        #expect(try await error("{\"current\": \"a\", \"profiles\": [")?.message.contains("not the CLI's JSON") == true)
        #expect(try await error("{\"profiles\": {\"a\": 1}}")?.message.contains("wrong type at profiles") == true)
        #expect(try await error("{\"current\": \"a\", \"profiles\": []}")?.message.contains("has no profiles") == true)
        let ak = "{\"name\": \"a\", \"mode\": \"AK\", \"access_key_id\": \"AK\", \"access_key_secret\": \"TopSecret\"}"
        #expect(try await error("{\"profiles\": [\(ak)]}")?.message.contains("names no current profile") == true)
        #expect(try await error("{\"current\": \"b\", \"profiles\": [\(ak)]}")?.message.contains("no profile b (it has: a)") == true)
        let arn = "{\"name\": \"r\", \"mode\": \"RamRoleArn\", \"access_key_id\": \"AK\", \"access_key_secret\": \"TopSecret\"}"
        #expect(
            try await error("{\"current\": \"r\", \"profiles\": [\(arn)]}")?.message
                .contains("lacks ram_role_arn") == true)
        let odd = "{\"name\": \"o\", \"mode\": \"Telepathy\"}"
        #expect(try await error("{\"current\": \"o\", \"profiles\": [\(odd)]}")?.message.contains("unknown mode Telepathy") == true)
        let noToken = "{\"name\": \"t\", \"mode\": \"StsToken\", \"access_key_id\": \"AK\", \"access_key_secret\": \"TopSecret\"}"
        #expect(try await error("{\"profiles\": [\(noToken)]}", profile: "t")?.message.contains("lacks sts_token") == true)
        let disabled = await thrownClientError {
            _ = try OSSCLIProfileCredentialProvider(environment: ["ALIBABA_CLOUD_CLI_PROFILE_DISABLED": "TRUE"])
        }
        #expect(disabled?.code == .invalidArgument)
    }

    @Test("the libraries' environment variables beside OSS_*: each provider reads only its own names")
    func libraryEnvironmentVariables() async throws {
        let environment = [
            "ALIBABA_CLOUD_ACCESS_KEY_ID": "AKAlibaba", "ALIBABA_CLOUD_ACCESS_KEY_SECRET": "AlibabaSecret",
            "ALIBABA_CLOUD_SECURITY_TOKEN": "AlibabaToken", "OSS_ACCESS_KEY_ID": "AKOss", "OSS_ACCESS_KEY_SECRET": "OssSecret",
        ]
        let alibaba = try await OSSEnvironmentCredentialProvider(variables: .alibabaCloud, environment: environment).credentials()
        #expect(alibaba.accessKeyId == "AKAlibaba" && alibaba.securityToken == "AlibabaToken")
        let oss = try await OSSEnvironmentCredentialProvider(environment: environment).credentials()
        #expect(oss.accessKeyId == "AKOss" && oss.securityToken == nil)
        let missing = await thrownClientError {
            _ = try await OSSEnvironmentCredentialProvider(
                variables: .alibabaCloud, environment: ["ALIBABA_CLOUD_ACCESS_KEY_ID": "AK"]
            ).credentials()
        }
        #expect(missing?.message == "ALIBABA_CLOUD_ACCESS_KEY_SECRET is not set in the environment")
        try await withTMServer { server, _ in
            let provider = OSSEnvironmentCredentialProvider(
                variables: .alibabaCloud,
                environment: [
                    "ALIBABA_CLOUD_ACCESS_KEY_ID": server.credentials.accessKeyId,
                    "ALIBABA_CLOUD_ACCESS_KEY_SECRET": server.credentials.accessKeySecret,
                ])
            try await uploadResumably(server, signedBy: provider, key: "env.bin")
        }
    }

    @Test("judge: credentials-python resolves the same credentials file, CLI config and profile choice alike",
        .enabled(if: CredentialsJudge.available, "needs .venv with alibabacloud-credentials"))
    func judgedByCredentialsPython() async throws {
        let home = try CredentialHome()
        defer { home.cleanup() }
        try home.writeCredentialsFile(
            "[default]\ntype = access_key\naccess_key_id = AKIniDefault # note\naccess_key_secret = s1\n"
                + "[prod]\ntype = access_key\naccess_key_id = AKIniProd\naccess_key_secret = s2\n")
        try home.writeCLIConfig(
            current: "dev",
            [
                ["name": "dev", "mode": "AK", "access_key_id": "AKCliDev", "access_key_secret": "s3"],
                ["name": "prod", "mode": "StsToken", "access_key_id": "STS.CliProd", "access_key_secret": "s4",
                 "sts_token": "t4"],
            ])
        for extra in [[:], ["ALIBABA_CLOUD_PROFILE": "prod"]] {
            let environment = home.environment(extra)
            let ours = try await OSSProfileCredentialProvider(environment: environment).credentials()
            let theirs = try await CredentialsJudge.resolve("profile", environment: environment)
            #expect(theirs.access_key_id == ours.accessKeyId, "\(extra): \(theirs)")
            let oursCLI = try await OSSCLIProfileCredentialProvider(environment: environment).credentials()
            let theirsCLI = try await CredentialsJudge.resolve("cli", environment: environment)
            #expect(theirsCLI.access_key_id == oursCLI.accessKeyId, "\(extra): \(theirsCLI)")
            #expect(theirsCLI.has_token == (oursCLI.securityToken != nil))
        }
        // Both fail on the same unknown profile.
        let unknown = home.environment(["ALIBABA_CLOUD_PROFILE": "nobody"])
        #expect(try await CredentialsJudge.resolve("profile", environment: unknown).error != nil)
        let ours = await thrownClientError { _ = try await OSSProfileCredentialProvider(environment: unknown).credentials() }
        #expect(ours?.message.contains("no profile nobody") == true)
    }
}
