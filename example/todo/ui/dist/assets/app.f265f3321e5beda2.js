// The todo list's page: it logs in with POST /session (the server sets
// an HttpOnly session cookie; the page keeps no credential), then lists,
// adds and ticks off the user's todos through the same API a program
// uses, and follows the changes made elsewhere (another tab, a program)
// as server-sent events. Only same-origin requests, no inline code: the
// page runs under a strict Content-Security-Policy.
'use strict';

const $ = (selector) => document.querySelector(selector);

function say(text) {
  $('#status').textContent = text;
}

async function call(method, path, body) {
  const init = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
  if (body instanceof URLSearchParams) {
    init.body = body;
  } else if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  return fetch(path, init);
}

// message reads the error body the API answers with.
async function message(res) {
  try {
    const body = await res.json();
    return body.message || res.statusText;
  } catch {
    return res.statusText;
  }
}

function show(loggedIn) {
  $('#login').hidden = loggedIn;
  $('#app').hidden = !loggedIn;
  if (loggedIn) {
    follow();
  } else {
    unfollow();
  }
}

// live is the stream of changes to the user's todos (GET /todos/events),
// open while the user is logged in. The browser reconnects it when it
// drops; each change reads the list again, once for a burst of them.
let live = null;
let rereading = false;

function changed() {
  if (rereading) {
    return;
  }
  rereading = true;
  setTimeout(() => {
    rereading = false;
    refresh().catch((err) => say(`Cannot reach the server: ${err.message}`));
  }, 50);
}

function follow() {
  if (live) {
    return;
  }
  live = new EventSource('/todos/events');
  for (const type of ['created', 'updated', 'deleted']) {
    live.addEventListener(type, changed);
  }
}

function unfollow() {
  if (live) {
    live.close();
    live = null;
  }
}

function item(todo) {
  const li = document.createElement('li');
  li.dataset.id = String(todo.id);
  const label = document.createElement('label');
  const box = document.createElement('input');
  box.type = 'checkbox';
  box.checked = todo.done;
  box.addEventListener('change', async () => {
    const res = await call('PATCH', `/todos/${todo.id}`, { done: box.checked });
    if (!res.ok) {
      box.checked = !box.checked;
      say(await message(res));
    }
  });
  const title = document.createElement('span');
  title.textContent = todo.title;
  label.append(box, ' ', title);
  li.append(label);
  return li;
}

// refresh shows the user's todos, or the login form; it returns whether
// the user is logged in.
async function refresh() {
  const res = await call('GET', '/todos?limit=100');
  if (res.status === 401) {
    show(false);
    return false;
  }
  if (!res.ok) {
    say(await message(res));
    return true;
  }
  const todos = await res.json();
  $('#todos').replaceChildren(...todos.map(item));
  show(true);
  return true;
}

$('#login').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const res = await call('POST', '/session', new URLSearchParams(new FormData(form)));
  if (!res.ok) {
    say(await message(res));
    return;
  }
  form.reset();
  say('');
  if (!(await refresh())) {
    // The session cookie is Secure: a browser keeps it from an https page,
    // or from localhost, and from nowhere else.
    say('Logged in, but the browser did not keep the session cookie: open the page over HTTPS or on localhost.');
  }
});

$('#new-todo').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const res = await call('POST', '/todos', { title: form.elements.title.value });
  if (!res.ok) {
    say(await message(res));
    return;
  }
  form.reset();
  say('');
  await refresh();
});

$('#logout').addEventListener('click', async () => {
  const res = await call('DELETE', '/session');
  if (!res.ok) {
    say(await message(res));
    return;
  }
  $('#todos').replaceChildren();
  show(false);
});

refresh().catch((err) => say(`Cannot reach the server: ${err.message}`));
