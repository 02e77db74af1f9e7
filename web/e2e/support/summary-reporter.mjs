// Prints one closing line, "e2e: N passed, N failed" (plus skipped and flaky), that CI logs can be
// read by, preceded by each failed or flaky test's title, the line it failed at and the first lines
// of its error, so that the end of a CI log alone says what failed and where. A flaky test (failed,
// then passed on CI's one retry) is named on every run, so that it gets fixed rather than ignored.
import { stripVTControlCharacters } from 'node:util'

export default class SummaryReporter {
  passed = 0
  failed = 0
  skipped = 0
  flaky = 0
  failures = []

  onTestEnd(test, result) {
    const failedAttempt = result.status !== 'passed' && result.status !== 'skipped'
    if (failedAttempt) this.failures.push(describe(test, result))
    // Count each test once, by its final attempt.
    if (failedAttempt && result.retry < test.retries) return
    if (result.status === 'passed') {
      this.passed += 1
      if (result.retry > 0) this.flaky += 1
    } else if (result.status === 'skipped') this.skipped += 1
    else this.failed += 1
  }

  onEnd() {
    for (const lines of this.failures) console.log(`e2e attempt failed: ${lines.join('\n    ')}`)
    const skipped = this.skipped ? `, ${this.skipped} skipped` : ''
    const flaky = this.flaky ? `, ${this.flaky} passed only on retry` : ''
    console.log(`e2e: ${this.passed} passed, ${this.failed} failed${skipped}${flaky}`)
  }

  printsToStdio() {
    return false
  }
}

function describe(test, result) {
  const error = result.error ?? result.errors?.[0]
  const where = error?.location ? `${error.location.file.split('/').pop()}:${error.location.line}` : test.location.file
  const message = stripVTControlCharacters(error?.message ?? result.status).split('\n').filter(Boolean).slice(0, 6)
  return [`${test.title} (${where}, attempt ${result.retry + 1}, after ${Math.round(result.duration / 1000)} s)`, ...message]
}
