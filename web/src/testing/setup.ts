import '@testing-library/jest-dom/vitest'

import { cleanup, configure } from '@testing-library/react'

import { recordUnhandled, server, takeUnhandled } from './mock-api'

// API calls are answered by MSW handlers (`mockApi`); an unhandled call fails its request at once
// and the test after it.
beforeAll(() =>
  server.listen({
    onUnhandledRequest(request, print) {
      recordUnhandled(request)
      print.error()
    },
  }),
)
afterAll(() => server.close())
// Sonner removes a dismissed toast on a 200 ms timer of its own, which can outlive the last test
// of a file; let it run before the file's environment (and its window) goes away.
afterAll(() => new Promise((resolve) => setTimeout(resolve, 250)))

// Lazy route modules are transformed on first use, which is slow on a busy machine.
configure({ asyncUtilTimeout: 5000 })

// jsdom has no matchMedia; the sidebar asks it whether the screen is narrow.
if (!window.matchMedia) {
  Object.defineProperty(window, 'matchMedia', {
    writable: true,
    value: (query: string) => ({
      matches: window.innerWidth < 768 && query.includes('max-width'),
      media: query,
      onchange: null,
      addEventListener: () => {},
      removeEventListener: () => {},
      addListener: () => {},
      removeListener: () => {},
      dispatchEvent: () => false,
    }),
  })
}

// Radix primitives observe sizes and pointer capture, which jsdom lacks.
if (!('ResizeObserver' in window)) {
  class ResizeObserverStub {
    observe() {}
    unobserve() {}
    disconnect() {}
  }
  Object.defineProperty(window, 'ResizeObserver', { writable: true, value: ResizeObserverStub })
}
Element.prototype.scrollIntoView ??= () => {}
window.scrollTo = () => {}
Element.prototype.hasPointerCapture ??= () => false
Element.prototype.releasePointerCapture ??= () => {}

afterEach(() => {
  cleanup()
  server.resetHandlers()
  for (const part of document.cookie.split(';')) {
    const name = part.split('=')[0]?.trim()
    if (name) document.cookie = `${name}=; path=/; max-age=0`
  }
  const unhandled = takeUnhandled()
  if (unhandled.length > 0) throw new Error(`API calls without a mock: ${unhandled.join(', ')}`)
})
