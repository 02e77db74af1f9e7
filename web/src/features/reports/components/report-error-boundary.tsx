import { Component, type ErrorInfo, type ReactNode } from 'react'

import { Button } from '@/components/ui/button'

type State = { error: Error | null; attempt: number }

/** Report-level error boundary: Something went wrong, with Try Again and Reload Page. */
export class ReportErrorBoundary extends Component<{ children: (attempt: number) => ReactNode }, State> {
  state: State = { error: null, attempt: 0 }

  static getDerivedStateFromError(error: Error): Partial<State> {
    return { error }
  }

  componentDidCatch(error: Error, info: ErrorInfo) {
    console.error('Report editor failed', error, info.componentStack)
  }

  render() {
    if (this.state.error) {
      return (
        <div role="alert" className="mx-auto max-w-lg space-y-4 rounded-lg border border-red-200 bg-red-50 p-6 text-center">
          <h2 className="text-lg font-semibold text-red-900">Something went wrong</h2>
          <p className="text-sm text-red-800">{this.state.error.message}</p>
          <div className="flex justify-center gap-2">
            <Button variant="outline" onClick={() => this.setState((s) => ({ error: null, attempt: s.attempt + 1 }))}>
              Try Again
            </Button>
            <Button onClick={() => window.location.reload()}>Reload Page</Button>
          </div>
        </div>
      )
    }
    return this.props.children(this.state.attempt)
  }
}
