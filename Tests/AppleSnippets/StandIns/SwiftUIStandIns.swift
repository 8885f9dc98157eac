// Stand-ins for the SwiftUI declarations the articles' snippets use, where SwiftUI does not exist (Linux). Their
// shapes follow Apple's documentation (checked with the docs search): `View` and `App` are main-actor protocols;
// `Scene.backgroundTask(_:action:)` (iOS 16, macOS 13, tvOS 16, watchOS 9) takes
// `@escaping @Sendable (D) async -> R` with `D: Sendable, R: Sendable`; `BackgroundTask.urlSession(_:)` is
// `static func urlSession(_ identifier: String) -> BackgroundTask<Void, Void>`; `View.onChange(of:initial:_:)`
// (iOS 17, macOS 14) calls `(_ oldValue: V, _ newValue: V) -> Void`; `ProgressView.init(_ progress: Progress)` (iOS 14).
#if !canImport(SwiftUI)
import Foundation

@MainActor public protocol View {}

@MainActor public protocol Scene {}

@MainActor public protocol App {
    associatedtype Body: Scene
    init()
    var body: Body { get }
}

extension App {
    public static func main() {}
}

@resultBuilder public enum ViewBuilder {
    public static func buildBlock(_ views: any View...) -> some View { Group() }
}

public struct Group: View {}

public struct VStack: View {
    public init(@ViewBuilder content: () -> some View) {}
}

public struct Text: View {
    public init(_ text: String) {}
}

public struct ProgressView: View {
    public init(value: Double) {}
    public init(_ progress: Progress) {}
}

public struct WindowGroup: Scene {
    public init(@ViewBuilder content: () -> some View) {}
}

public enum ScenePhase: Sendable, Hashable {
    case active, inactive, background
}

public struct EnvironmentValues {
    public var scenePhase: ScenePhase { .active }
}

@propertyWrapper public struct Environment<Value> {
    public init(_ keyPath: KeyPath<EnvironmentValues, Value>) {}
    public var wrappedValue: Value { fatalError("a stand-in: never run") }
}

@propertyWrapper public struct State<Value> {
    public var wrappedValue: Value
    public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }
}

public struct BackgroundTask<Request, Response> {
    public static func urlSession(_ identifier: String) -> BackgroundTask<Void, Void> { BackgroundTask<Void, Void>() }
}

extension View {
    public nonisolated func onChange<V: Equatable>(of value: V, initial: Bool = false, _ action: @escaping (_ oldValue: V, _ newValue: V) -> Void)
        -> some View
    { self }
}

extension Scene {
    public nonisolated func backgroundTask<D: Sendable, R: Sendable>(
        _ task: BackgroundTask<D, R>, action: @escaping @Sendable (D) async -> R
    ) -> some Scene { BackgroundTaskScene() }
}

public struct BackgroundTaskScene: Scene {
    public nonisolated init() {}
}
#endif
