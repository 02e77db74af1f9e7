// Settings and profile in the browser against the real server: a member saves the Project
// Settings (Save Changes enabled only after a change) while a viewer watches them change live
// and read-only; a user changes their name, photo and password from the profile menu's Settings;
// an administrator reaches Profile and Settings (mail sender, upload limits) from the menu.
import { expect, test } from '@playwright/test'

import { login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS } from './support/server.mjs'
import { useServer } from './support/suite.mjs'

const env = useServer()

// A 1x1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
)

test('project settings are saved by a member and followed live by a viewer', async ({ browser }) => {
  const member = await newPage(browser, env.server.baseUrl)
  await login(member, ACCOUNTS.userA)
  await expect(member).toHaveURL(/\/client\/home/)
  const viewer = await newPage(browser, env.server.baseUrl)
  await login(viewer, ACCOUNTS.viewer)
  await expect(viewer).toHaveURL(/\/client\/home/)
  await viewer.getByRole('link', { name: 'Settings' }).click()
  await expect(viewer).toHaveURL(/\/client\/settings/)
  await expect(viewer.getByLabel('Client Name')).toBeDisabled()
  await expect(viewer.getByText('You have read-only access to this project.')).toBeVisible()

  await member.getByRole('link', { name: 'Settings' }).click()
  await expect(member).toHaveURL(/\/client\/settings/)
  await expect(member.getByRole('heading', { name: 'Project Settings' })).toBeVisible()
  const name = member.getByLabel('Client Name')
  await expect(name).toHaveValue('Bank A')
  const card = member.locator('form').filter({ has: name })
  const save = card.getByRole('button', { name: 'Save Changes' })
  await expect(save).toBeDisabled()
  await name.fill('Bank A Group')
  await card.getByLabel('Description').fill('Spanish retail and commercial bank')
  await expect(save).toBeEnabled()
  await card.getByRole('button', { name: 'Cancel' }).click()
  await expect(name).toHaveValue('Bank A')
  await name.fill('Bank A Group')
  await card.getByLabel('Description').fill('Spanish retail and commercial bank')
  await save.click()
  await expect(member.getByText('Project settings updated successfully')).toBeVisible()
  await expect(save).toBeDisabled()
  await expect(viewer.getByLabel('Client Name')).toHaveValue('Bank A Group')
  await expect(viewer.getByLabel('Description')).toHaveValue('Spanish retail and commercial bank')
  await screenshot(member, 'client-settings')
  // Saved on the server: a reload shows it.
  await member.reload()
  await expect(member.getByLabel('Client Name')).toHaveValue('Bank A Group')
  expect(member.errors).toEqual([])
  expect(viewer.errors).toEqual([])
})

test('a user changes their name, photo and password from the profile menu', async ({ browser }) => {
  const page = await newPage(browser, env.server.baseUrl)
  await login(page, ACCOUNTS.userB)
  await expect(page).toHaveURL(/\/client\/home/)
  await page.getByRole('button', { name: 'Profile menu' }).click()
  await page.getByRole('menuitem', { name: 'Settings' }).click()
  await expect(page).toHaveURL(/\/client\/settings/)

  await page.getByLabel('First Name').fill('Beatriz')
  await page.getByLabel('Last Name').fill('Ortega Ruiz')
  const profile = page.locator('form').filter({ has: page.getByLabel('First Name') })
  await profile.getByRole('button', { name: 'Save Changes' }).click()
  await expect(page.getByText('Profile updated')).toBeVisible()
  await expect(page.getByRole('button', { name: 'Profile menu' })).toContainText('Beatriz Ortega Ruiz')

  await page.getByTestId('avatar-input').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: PNG })
  await expect(page.getByText('Photo updated')).toBeVisible()
  const avatar = page.getByTestId('profile-avatar')
  await expect(avatar).toBeVisible()
  expect(await avatar.evaluate((img) => img.naturalWidth)).toBe(1)
  await page.getByTestId('avatar-input').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') })
  await expect(page.getByText('Please upload only PNG, JPEG, GIF or WebP images.')).toBeVisible()

  await page.getByLabel('Current Password').fill('Demo-Password-1')
  await page.getByLabel('New Password', { exact: true }).fill('weakpassword')
  await page.getByLabel('Confirm New Password').fill('weakpassword')
  await page.getByRole('button', { name: 'Change Password' }).click()
  await expect(page.getByText('Password must contain at least one uppercase letter')).toBeVisible()
  await page.getByLabel('New Password', { exact: true }).fill('Fresh-Pass-9')
  await page.getByLabel('Confirm New Password').fill('Fresh-Pass-9')
  await page.getByRole('button', { name: 'Change Password' }).click()
  await expect(page.getByText('Password changed')).toBeVisible()
  await screenshot(page, 'client-settings-profile')

  const again = await newPage(browser, env.server.baseUrl)
  await login(again, ACCOUNTS.userB, 'Fresh-Pass-9')
  await expect(again).toHaveURL(/\/client\/home/)
  expect(page.errors).toEqual([])
})

test("an administrator's profile and settings pages", async ({ browser }) => {
  const admin = await newPage(browser, env.server.baseUrl)
  await login(admin, ACCOUNTS.admin)
  await expect(admin).toHaveURL(/\/admin\/dashboard/)
  await admin.getByRole('button', { name: 'Profile menu' }).click()
  await admin.getByRole('menuitem', { name: 'Profile' }).click()
  await expect(admin).toHaveURL(/\/admin-profile$/)
  await expect(admin.getByLabel('Email')).toHaveValue(ACCOUNTS.admin)
  await admin.getByLabel('First Name').fill('Alicia María')
  await admin.getByRole('button', { name: 'Save Changes' }).click()
  await expect(admin.getByText('Profile updated')).toBeVisible()
  await expect(admin.getByRole('button', { name: 'Profile menu' })).toContainText('Alicia María Admin')
  await screenshot(admin, 'admin-profile')

  await admin.getByRole('button', { name: 'Profile menu' }).click()
  await admin.getByRole('menuitem', { name: 'Settings' }).click()
  await expect(admin).toHaveURL(/\/admin-settings$/)
  await expect(admin.getByText('Mail sender')).toBeVisible()
  await expect(admin.getByText('Up to 20 MB per file')).toBeVisible()
  await expect(admin.getByText('xlsx, xls, csv, up to 25 MB each, 20 per upload')).toBeVisible()
  await screenshot(admin, 'admin-settings')

  // Not for other users: they land on their home.
  const user = await newPage(browser, env.server.baseUrl)
  await login(user, ACCOUNTS.userA)
  await expect(user).toHaveURL(/\/client\/home/)
  await user.goto('/admin-settings')
  await expect(user).toHaveURL(/\/client\/home/)
  await user.goto('/client-settings')
  await expect(user).toHaveURL(/\/client\/settings/)
  expect(admin.errors).toEqual([])
})
