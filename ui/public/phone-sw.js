// The phone page's service worker (decision 0023): it shows the console's pushes, which say
// how many calls wait and nothing else, and opens the page when one is tapped.
self.addEventListener("push", (event) => {
  let message = {};
  try { message = event.data ? event.data.json() : {}; } catch { message = {}; }
  const body = typeof message.body === "string" ? message.body : "Calls are waiting";
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
