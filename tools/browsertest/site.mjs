// Usage: node tools/browsertest/site.mjs [SITE]   (make browser-test)
//
// The built manual in a real browser: serves SITE (default build/site, as
// `make docs-build` writes it) with a small static server on 127.0.0.1 (a
// free port) and drives Debian's Chromium through playwright-core:
//
//  1. the front page renders: its title names tailscope, the navigation
//     holds the four parts of the manual (tutorial, how-to guides,
//     reference, explanation);
//  2. a reference page (the scenario spec) renders with its heading and a
//     code block, and no page the test opens logs a JavaScript error;
//  3. no page asks for anything outside the local server (no web fonts);
//  4. search works: typing "parking lot" into the search box lists results,
//     and the first result opens a page of the manual.
//
// Exits non-zero on the first failed check.
import { existsSync, readFileSync, statSync } from 'node:fs'
import { createServer } from 'node:http'
import { dirname, extname, join, normalize, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const site = resolve(root, process.argv[2] ?? join('build', 'site'))
const WAIT_MS = 30 * 1000

const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.woff2': 'font/woff2', '.xml': 'application/xml', '.txt': 'text/plain',
}

function check(ok, msg) {
  if (!ok) throw new Error(msg)
}

// A static server for SITE on 127.0.0.1: directories answer with their
// index.html, paths outside SITE are refused.
function serve() {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname)
    let file = normalize(join(site, path))
    if (file !== site && !file.startsWith(site + sep)) {
      res.writeHead(403).end()
      return
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html')
    if (!existsSync(file)) {
      res.writeHead(404).end('not found')
      return
    }
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' })
    res.end(readFileSync(file))
  })
  return new Promise((res, rej) => {
    server.on('error', rej)
    server.listen(0, '127.0.0.1', () => res(server))
  })
}

async function main() {
  check(existsSync(join(site, 'index.html')), `${site}/index.html is missing: run make docs-build first`)
  const server = await serve()
  const base = `http://127.0.0.1:${server.address().port}`
  let browser
  try {
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    })
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } })
    const errors = []
    page.on('pageerror', e => errors.push(e.message))
    // The manual loads nothing from outside this host (no web fonts).
    page.on('request', r => {
      if (!r.url().startsWith(base) && !r.url().startsWith('data:')) errors.push(`request to ${r.url()}`)
    })

    await page.goto(`${base}/`)
    check((await page.title()).includes('tailscope'), `front page title is ${JSON.stringify(await page.title())}`)
    const nav = (await page.locator('.md-nav--primary').first().innerText()).toLowerCase()
    for (const part of ['tutorial', 'how-to', 'reference', 'explanation']) {
      check(nav.includes(part), `front page navigation lacks ${part}: ${JSON.stringify(nav.slice(0, 300))}`)
    }
    check(await page.locator('article h1').count() > 0, 'front page has no heading')

    await page.goto(`${base}/reference/spec/`)
    const h1 = await page.locator('article h1').first().innerText()
    check(/scenario spec/i.test(h1), `reference page heading is ${JSON.stringify(h1)}`)
    check(await page.locator('article pre code').count() > 0, 'reference page shows no code block')

    await page.goto(`${base}/`)
    // Typed key by key: Material's search listens to keyboard events.
    await page.locator('.md-search__input').first().click({ force: true })
    await page.keyboard.type('parking lot', { delay: 20 })
    const results = page.locator('.md-search-result__item')
    await results.first().waitFor({ timeout: WAIT_MS })
    const n = await results.count()
    check(n > 0, 'search for "parking lot" found nothing')
    await results.first().locator('a').first().click()
    await page.waitForLoadState('load')
    check(await page.locator('article h1').count() > 0, `first search result ${page.url()} shows no page`)
    check(errors.length === 0, `JavaScript errors: ${errors.join('; ')}`)
    console.log(`browser-test: manual OK: front page, reference/spec, search "parking lot" (${n} results) -> ${page.url().slice(base.length)}`)
  } finally {
    await browser?.close()
    server.close()
  }
}

try {
  await main()
} catch (e) {
  console.error(`browser-test: FAIL (manual): ${e.message}`)
  process.exit(1)
}
