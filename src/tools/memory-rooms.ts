/** memory_rooms: the rooms memories are placed in, or one room's memories in slot order. */

import { ROOM_CAPACITY } from '../memory/organisation/rooms.js'
import { roomsListing } from '../memory/reading/walk.js'
import { locationField, placedBriefShape } from './declare/place-shapes.js'
import { BRIEF_REQUIRED, briefFields } from './declare/shapes.js'
import { defineTool, READS_ONLY } from './declare/tool.js'

export const memoryRoomsTool = defineTool(
  {
    name: 'memory_rooms',
    title: 'Rooms',
    group: 'browse',
    description:
      `Every memory has a fixed place, room#slot (such as topics-2#4). Rooms go by kind (topics, episodes) and hold ${ROOM_CAPACITY} slots; a full room opens the next, and a slot is never reused. Each clone of a synced store fills rooms of its own (topics-<wing>). Lists the rooms in order with their latest memory; with room, that room's current memories by slot.`,
    input: {
      type: 'object',
      properties: { room: { type: 'string', minLength: 1, maxLength: 64, description: 'A room name, such as topics or episodes-2.' } },
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: {
        capacity: { type: 'integer' },
        rooms: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              room: { type: 'string' },
              kind: { type: 'string' },
              used: { type: 'integer', description: 'Slots given so far (never reused).' },
              free: { type: 'integer' },
              current: { type: 'integer', description: 'Current memories standing here.' },
              latest: { oneOf: [placedBriefShape, { type: 'null' }] },
            },
            required: ['room', 'kind', 'used', 'free', 'current', 'latest'],
            additionalProperties: false,
          },
        },
        members: {
          type: 'array',
          items: {
            type: 'object',
            properties: { ...briefFields, location: locationField, slot: { type: 'integer' } },
            required: [...BRIEF_REQUIRED, 'slot'],
            additionalProperties: false,
          },
        },
        unplaced: { type: 'integer', description: 'Current memories without a location (imported or hand-written).' },
      },
      required: ['capacity', 'rooms', 'unplaced'],
      additionalProperties: false,
    },
    annotations: READS_ONLY,
    cli: { argument: 'room' },
  },
  (backend, input) => roomsListing(backend, input.room),
)

export const roomsHandler = memoryRoomsTool.handler
