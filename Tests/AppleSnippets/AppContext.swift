// What the articles' snippets take from the app around them: a client, a credential provider, the Application
// Support folder, a content view. Never run: the target exists to type-check the snippets.
import AliyunOSS
import Foundation
#if canImport(SwiftUI)
import SwiftUI
#endif

/// The app's client (``OSSClient`` is `Sendable`).
var client: OSSClient { fatalError("a stand-in: never run") }

/// The app's STS credential provider.
var myRefreshingSTSProvider: any OSSCredentialProvider { fatalError("a stand-in: never run") }

/// The app's Application Support folder.
var supportDirectory: URL { FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0] }

struct ContentView: View {
    var body: some View { Text("Photos") }
}
