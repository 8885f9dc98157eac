import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session's delegate: routes each task's events to its ``OSSURLSessionTaskState`` and refuses redirects (a
/// signed request is never followed to another URL silently: the 3xx reaches the caller).
final class OSSURLSessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let tasks = OSSLockedValue<[Int: OSSURLSessionTaskState]>([:])

    func register(_ state: OSSURLSessionTaskState) {
        tasks.withLockedValue { $0[state.task.taskIdentifier] = state }
    }

    func unregister(_ state: OSSURLSessionTaskState) {
        _ = tasks.withLockedValue { $0.removeValue(forKey: state.task.taskIdentifier) }
    }

    private func state(for task: URLSessionTask) -> OSSURLSessionTaskState? {
        tasks.withLockedValue { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        state(for: task)?.didSend(totalBytesSent: totalBytesSent)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse else {
            completionHandler(.cancel)
            return
        }
        state(for: dataTask)?.didReceive(response: http)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state(for: dataTask)?.didReceive(data: data)
    }

    func urlSession(_ session: URLSession, taskIsWaitingForConnectivity task: URLSessionTask) {
        state(for: task)?.onWaitingForConnectivity?()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        state(for: task)?.didComplete(error: error)
    }
}
