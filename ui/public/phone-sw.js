// The phone page's service worker (decision 0023): it shows the console's pushes, which carry
// two numbers (calls waiting, agents asking) and nothing else; the words are written here, so a
// push can never put other text in a notification. Tapping it opens the page.
self.addEventListener("push", (event) => {
  let message = {};
  try { message = event.data ? event.data.json() : {}; } catch { message = {}; }
  const count = (n) => (Number.isSafeInteger(n) && n > 0 ? n : 0);
  const calls = count(message.calls);
  const agents = count(message.agents);
  const body = calls === 0 ? "Calls are waiting"
    : calls === 1 ? "1 call waiting"
    : agents > 1 ? `${calls} calls from ${agents} agents waiting`
    : `${calls} calls waiting`;
  event.waitUntil(self.registration.showNotification("Countersign", {
    body, tag: "countersign-waiting", renotify: true,
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((open) => {
    const page = open.find((c) => new URL(c.url).origin === self.location.origin);
    return page ? page.focus() : self.clients.openWindow("/");
  }));
});
