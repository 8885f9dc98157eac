// Stand-ins for the UIKit declarations the articles' snippets use, where UIKit's app delegate does not exist
// (Linux, macOS, tvOS, watchOS). Each mirrors Apple's declaration as documented (checked with the docs search):
// - UIApplicationDelegate: `@MainActor protocol UIApplicationDelegate : NSObjectProtocol`;
// - application(_:handleEventsForBackgroundURLSession:completionHandler:): iOS 7+, visionOS 1+, not tvOS,
//   `optional func application(_ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
//   completionHandler: @escaping () -> Void)`: a plain, non-Sendable completion handler.
#if !(os(iOS) || os(visionOS))
import Foundation

@MainActor
public protocol UIApplicationDelegate: NSObjectProtocol {}

@MainActor
public final class UIApplication {}
#endif
