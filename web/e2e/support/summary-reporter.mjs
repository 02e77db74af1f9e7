// Prints one closing line, "e2e: N passed, N failed" (plus skipped), that CI logs can be read by.
export default class SummaryReporter {
  passed = 0
  failed = 0
  skipped = 0

  onTestEnd(test, result) {
    // Count each test once, by its final attempt.
    if (result.retry < test.retries && result.status !== 'passed' && result.status !== 'skipped') return
    if (result.status === 'passed') this.passed += 1
    else if (result.status === 'skipped') this.skipped += 1
    else this.failed += 1
  }

  onEnd() {
    const skipped = this.skipped ? `, ${this.skipped} skipped` : ''
    console.log(`e2e: ${this.passed} passed, ${this.failed} failed${skipped}`)
  }

  printsToStdio() {
    return false
  }
}
