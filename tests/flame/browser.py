"""Headless Chromium through selenium for the flame viewer's tests (Debian's chromium,
chromium-driver and python3-selenium; scripts/deps installs them).

Every page gets, before any of its own script runs, a recorder: alert/confirm/prompt calls,
CSP violations and elements added to the document after load are kept in window.__rec, so a
test can tell that nothing in a name ran or became markup."""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import tap  # noqa: E402

RECORDER = r"""
(() => {
  const rec = { dialogs: [], csp: [], added: [], loaded: false };
  Object.defineProperty(window, '__rec', { value: rec });
  for (const f of ['alert', 'confirm', 'prompt', 'print', 'open']) {
    window[f] = function (...a) { rec.dialogs.push(f + ':' + String(a[0])); };
  }
  document.addEventListener('securitypolicyviolation', (e) => {
    rec.csp.push(e.violatedDirective + ' ' + e.blockedURI);
  });
  new MutationObserver((muts) => {
    for (const m of muts) for (const n of m.addedNodes) {
      if (n.nodeType === 1 && ['SCRIPT', 'IMG', 'IFRAME', 'OBJECT', 'EMBED', 'A', 'SVG', 'LINK',
          'STYLE', 'META', 'FORM', 'BASE', 'VIDEO', 'AUDIO', 'svg'].includes(n.tagName)) {
        rec.added.push(n.tagName);
      }
    }
  }).observe(document, { childList: true, subtree: true });
})();
"""


def chromium_paths():
    chrome = shutil.which('chromium') or '/usr/bin/chromium'
    driver = shutil.which('chromedriver') or '/usr/bin/chromedriver'
    return chrome, driver


def skip_reason():
    chrome, driver = chromium_paths()
    if not os.path.exists(chrome):
        return 'chromium is not installed (Debian package chromium)'
    if not os.path.exists(driver):
        return 'chromedriver is not installed (Debian package chromium-driver)'
    try:
        import selenium  # noqa: F401
    except ImportError:
        return 'python3-selenium is not installed'
    return None


class Browser:
    def __init__(self, width=1200, height=900):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        chrome, driver = chromium_paths()
        self.profile = tempfile.mkdtemp(prefix='flame-chromium-')
        o = webdriver.ChromeOptions()
        o.binary_location = chrome
        for a in ('--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
                  '--disable-component-update', '--disable-sync', '--no-first-run',
                  '--disable-default-apps', '--disable-extensions', '--hide-scrollbars',
                  '--force-device-scale-factor=1', '--user-data-dir=' + self.profile,
                  '--window-size=%d,%d' % (width, height)):
            o.add_argument(a)
        o.set_capability('goog:loggingPrefs', {'browser': 'ALL', 'performance': 'ALL'})
        self.d = webdriver.Chrome(service=Service(driver), options=o)
        self.d.execute_cdp_cmd('Page.addScriptToEvaluateOnNewDocument', {'source': RECORDER})
        self.d.execute_cdp_cmd('Network.enable', {})

    def open(self, path, fragment=''):
        url = 'file://' + os.path.abspath(path) + (('#' + fragment) if fragment else '')
        self.d.get('about:blank')  # a new fragment alone would not load the page again
        self.d.get(url)
        from selenium.webdriver.support.ui import WebDriverWait
        WebDriverWait(self.d, 60).until(lambda d: d.execute_script(
            'return document.body && document.body.dataset.state !== "loading"'))
        return self.d.execute_script('return document.body.dataset.state')

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def console(self):
        """browser console entries since the last call: [(level, message)]"""
        return [(e['level'], e['message']) for e in self.d.get_log('browser')]

    def requests(self):
        """URLs the page asked the network stack for (CDP Network.requestWillBeSent)."""
        urls = []
        for e in self.d.get_log('performance'):
            m = json.loads(e['message'])['message']
            if m.get('method') == 'Network.requestWillBeSent':
                urls.append(m['params']['request']['url'])
        return urls

    def rec(self):
        return self.js('return window.__rec')

    def close(self):
        try:
            self.d.quit()
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)


def skip_or_none():
    r = skip_reason()
    if r:
        tap.skip_all(r)
